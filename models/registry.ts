/**
 * Every model the checker knows, in the order `shardkv models` lists them. A model is built
 * from its name, its parameters and an optional bug, all plain data, so that worker threads
 * and replayed traces can rebuild exactly the same model.
 */
import type { ModelDefinition } from '../checker/model.js';
import { dieHardDefinition } from './calibration/diehard.js';
import { twoPhaseDefinition } from './calibration/twophase.js';
import { controllerDefinition } from './controller/model.js';
import { migrationDefinition } from './migration/model.js';
import { raftDefinition } from './raft/index.js';

export const modelDefinitions: readonly ModelDefinition[] = [
  dieHardDefinition,
  twoPhaseDefinition,
  raftDefinition,
  controllerDefinition,
  migrationDefinition,
];

export function findModel(name: string): ModelDefinition | undefined {
  return modelDefinitions.find((definition) => definition.name === name);
}

/** This module, for worker threads: they load a registered model from here by its name. */
export const registryModule = import.meta.url;
