/**
 * The body of one of `shardkv conform`'s threads (verify/conform/stage-thread.ts): opens the
 * files of its nodes and runs their per-node checks. A file that cannot be read as UTF-8 is
 * malformed input, as on the main thread (where cli/input.ts's UsageError says so).
 */
import { workerData } from 'node:worker_threads';
import { UsageError } from '../checker/params.js';
import { MalformedTraceError } from '../verify/conform/divergence.js';
import { serveStage, type StageThreadData } from '../verify/conform/stage-thread.js';
import type { TraceSource } from '../verify/conform/trace-lines.js';
import { fileSource } from './input.js';

/** What cli/conform.ts starts a thread with: the stage's data and its nodes' files. */
export interface ConformThreadData extends StageThreadData {
  readonly paths: readonly string[];
}

function source(path: string): TraceSource {
  const chunks = fileSource(path);
  return function* malformedIfUnreadable() {
    try {
      yield* chunks();
    } catch (error) {
      throw error instanceof UsageError ? new MalformedTraceError(error.message) : error;
    }
  };
}

const data = workerData as ConformThreadData;
serveStage(new Map(data.nodes.map((node, at) => [node, source(data.paths[at]!)] as const)),
  data);
