/** The benchmark sections, each in a file of its own. */
import { spinBench } from './checker-spin.js';
import { checkerBench } from './checker.js';
import { codecBench } from './codec.js';
import { scaleBench } from './checker-scale.js';
import { conformBench } from './conform.js';
import { conformMillionBench } from './conform-million.js';
import { controllerSection } from './controller.js';
import { groupBench } from './group.js';
import { lincheckBench } from './lincheck.js';
import { mbtBench } from './mbt.js';
import { migrationBench } from './migration.js';
import { raftBench } from './raft.js';
import { raftLogBench } from './raft-log.js';
import { simulateBench } from './simulate.js';

export interface BenchSection {
  readonly name: string;
  readonly description: string;
  /** Run only when named (`npm run bench -- NAME`): it takes minutes. */
  readonly optIn?: boolean;
  run(): Promise<void>;
}

export const sections: readonly BenchSection[] = [
  checkerBench,
  scaleBench,
  spinBench,
  raftBench,
  raftLogBench,
  controllerSection,
  migrationBench,
  groupBench,
  codecBench,
  lincheckBench,
  simulateBench,
  mbtBench,
  conformBench,
  conformMillionBench,
];
