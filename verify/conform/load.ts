/**
 * Parses a trace directory's files (traces/README.md, impl/trace/schema.ts) into records,
 * checking the shape of every line: a line that is not a record of this schema version makes
 * the whole input malformed (exit 2), never a divergence.
 */
import { parseWithMaps } from '../../impl/node/json-maps.js';
import { traceVersion, type TraceRecord } from '../../impl/trace/schema.js';
import { MalformedTraceError } from './divergence.js';

export interface TraceFiles {
  /** node name -> the text of its trace file. */
  readonly nodes: ReadonlyMap<string, string>;
  /** history.jsonl, when present. */
  readonly history: string | null;
}

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

export function parseNodeTrace(node: string, text: string): TraceRecord[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  else if (text !== '') {
    // Every record ends with its newline: a last line without one was cut while written.
    throw new MalformedTraceError(`${node}.jsonl is truncated: line ${lines.length} ends ` +
      'without a newline (the file was cut while it was written)');
  }
  return lines.map((line, index) => {
    let value: unknown;
    try {
      value = parseWithMaps(line);
    } catch (error) {
      throw new MalformedTraceError(`${node}.jsonl line ${index + 1}: not JSON ` +
        `(${(error as Error).message})`);
    }
    const problem = checkRecord(value, node);
    if (problem !== null) {
      throw new MalformedTraceError(`${node}.jsonl line ${index + 1}: ${problem}`);
    }
    return value as TraceRecord;
  });
}

export function parseTraces(files: TraceFiles): Map<string, TraceRecord[]> {
  if (files.nodes.size === 0) throw new MalformedTraceError('no node trace (NODE.jsonl) found');
  const traces = new Map<string, TraceRecord[]>();
  for (const [node, text] of [...files.nodes].sort(([a], [b]) => (a < b ? -1 : 1))) {
    traces.set(node, parseNodeTrace(node, text));
  }
  return traces;
}
