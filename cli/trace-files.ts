/** Writing a trace and its ITF twin (`NAME.trace.json`, `NAME.itf.json`): check and replay. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../checker/params.js';
import { lassoToItf } from '../checker/liveness-trace.js';
import { traceToItf, type Trace } from '../checker/trace.js';

/** Where the ITF file of the trace at `tracePath` goes: beside it, as `.itf.json`. */
export function itfPathOf(tracePath: string): string {
  return tracePath.replace(/(\.trace)?\.json$/, '') + '.itf.json';
}

/** Writes both files; a path that cannot be written is the user's to fix (exit 2). */
export function writeTraceFiles(tracePath: string, trace: Trace): string {
  const itfPath = itfPathOf(tracePath);
  writeJson(tracePath, trace);
  // A lasso's ITF names the state its cycle returns to.
  writeJson(itfPath, trace.loop === undefined ? traceToItf(trace) : lassoToItf(trace));
  return itfPath;
}

function writeJson(path: string, content: unknown): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(content, null, 1) + '\n');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`cannot write the trace to ${path}: ${code}`);
  }
}
