// Loads a kept checker trace and replays it in the runtime (impl/sim/replay).
import { readFileSync } from 'node:fs';
import { parseTrace } from '../../checker/replay.js';
import type { Trace } from '../../checker/trace.js';
import {
  replayInRuntime, type RuntimeReplayOutcome,
} from '../../verify/replay/runtime-replay.js';
import { findModel } from '../../models/registry.js';

export function keptTrace(model: string, bug: string): Trace {
  return parseTrace(readFileSync(`traces/${model}/${bug}.trace.json`, 'utf8'));
}

export function replayKept(
  model: string,
  bug: string,
  withoutBug: boolean,
): Promise<RuntimeReplayOutcome> {
  const trace = keptTrace(model, bug);
  return replayInRuntime(findModel(trace.model)!, trace, { withoutBug });
}
