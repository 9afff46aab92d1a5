/** The benchmark sections, each in a file of its own. */
import { raftBench } from './raft.js';

export interface BenchSection {
  readonly name: string;
  readonly description: string;
  run(): Promise<void>;
}

export const sections: readonly BenchSection[] = [raftBench];
