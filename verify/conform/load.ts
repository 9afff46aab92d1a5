/**
 * Reads a node's trace file (traces/README.md, impl/trace/schema.ts) as records, checking
 * the shape of every line: a line that is not a record of this schema version makes
 * the whole input malformed (exit 2), never a divergence.
 */
import { parseWithMaps } from '../../impl/node/json-maps.js';
import { traceVersion, type TraceRecord } from '../../impl/trace/schema.js';
import { MalformedTraceError } from './divergence.js';
import { traceLines, type TraceSource } from './trace-lines.js';

const actors = ['raft', 'machine', 'driver', 'shell'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkRecord(value: unknown, node: string): string | null {
  if (!isObject(value)) return 'not a JSON object';
  if (value.v !== traceVersion) {
    return `schema version ${String(value.v)}, expected ${traceVersion}`;
  }
  if (value.node !== node) return `node ${JSON.stringify(value.node)} in the file of ${node}`;
  for (const field of ['seq', 'inc', 'lamport']) {
    if (!Number.isSafeInteger(value[field]) || (value[field] as number) < 1) {
      return `${field} is not a positive integer`;
    }
  }
  if (!actors.includes(value.actor as string)) return `unknown actor ${String(value.actor)}`;
  if (!isObject(value.input) || typeof value.input.type !== 'string') return 'no input type';
  if (!Array.isArray(value.effects)) return 'effects is not an array';
  if (value.actor !== 'shell' && typeof value.digest !== 'string') return 'no digest';
  return null;
}

/** `node`'s records in order, each line checked as it is read. */
export function* readNodeTrace(node: string, source: TraceSource): Generator<TraceRecord> {
  let line = 0;
  for (const text of traceLines(node, source)) {
    line++;
    let value: unknown;
    try {
      value = parseWithMaps(text);
    } catch (error) {
      throw new MalformedTraceError(`${node}.jsonl line ${line}: not JSON ` +
        `(${(error as Error).message})`);
    }
    const problem = checkRecord(value, node);
    if (problem !== null) throw new MalformedTraceError(`${node}.jsonl line ${line}: ${problem}`);
    yield value as TraceRecord;
  }
}
