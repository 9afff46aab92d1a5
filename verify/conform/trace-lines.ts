/**
 * A trace file as a stream of lines, so `conform` holds one record at a time however large
 * the file (issue 23 item 4). A source is re-readable: the link check reads a sender's file
 * a second time in the rare case a delivered message's text differs from its send's.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { MalformedTraceError } from './divergence.js';

/** Text chunks of one trace file, from its start, each time it is called. */
export type TraceSource = () => Iterable<string>;

/** The traces conform checks: node name -> its file's source; history.jsonl's text. */
export interface TraceInput {
  readonly nodes: ReadonlyMap<string, TraceSource>;
  readonly history: string | null;
}

const chunkBytes = 1 << 20;
/** V8 cannot hold a string much over 512 MiB: a longer line is refused, not a crash. */
export const lineCharactersMax = 256 << 20;

export const textSource = (text: string): TraceSource => () => [text];

export function fileSource(path: string): TraceSource {
  return function* chunks() {
    const descriptor = openSync(path, 'r');
    try {
      const decoder = new StringDecoder('utf8');
      const buffer = Buffer.allocUnsafe(chunkBytes);
      for (;;) {
        const count = readSync(descriptor, buffer, 0, chunkBytes, null);
        if (count === 0) break;
        yield decoder.write(buffer.subarray(0, count));
      }
      yield decoder.end();
    } finally {
      closeSync(descriptor);
    }
  };
}

/**
 * The lines of `node`'s trace, without their newlines. Every record ends with its newline:
 * a last line without one was cut while it was written, and the input is malformed.
 */
export function* traceLines(node: string, source: TraceSource): Generator<string> {
  let rest = '';
  let count = 0;
  for (const chunk of source()) {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      count++;
      yield rest === '' ? chunk.slice(start, end) : rest + chunk.slice(start, end);
      rest = '';
      start = end + 1;
    }
    if (rest.length + chunk.length - start > lineCharactersMax) {
      throw new MalformedTraceError(`${node}.jsonl line ${count + 1} is longer than ` +
        `${lineCharactersMax} characters`);
    }
    rest += chunk.slice(start);
  }
  if (rest !== '') {
    throw new MalformedTraceError(`${node}.jsonl is truncated: line ${count + 1} ends ` +
      'without a newline (the file was cut while it was written)');
  }
}
