/**
 * A node process's trace sink (`cluster start --trace`): DIR/traces/<node>.jsonl, one
 * synchronous write per line, so that a SIGKILL loses no line the node acted on (the page
 * cache keeps it). A restarted process resumes from the file's last line.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { tracePositionStart, type TracePosition } from '../trace/schema.js';
import type { TraceSink } from '../trace/trace-sink.js';

/** Bytes read per chunk when looking for the last line of an existing trace file. */
const tailChunkBytes = 65_536;

export class FileTraceSink implements TraceSink {
  private readonly descriptor: number;
  private readonly start: TracePosition;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.descriptor = openSync(path, 'a+');
    this.start = positionOf(lastLine(this.descriptor));
  }

  resume(): TracePosition {
    return this.start;
  }

  append(line: string): void {
    writeSync(this.descriptor, line + '\n');
  }

  close(): void {
    closeSync(this.descriptor);
  }
}

/** Bytes of lines a buffered sink holds before it writes them. */
const bufferedBytesMax = 1_048_576;

/**
 * The simulator's file sink (`simulate --trace DIR`): a new file, lines buffered and written
 * a megabyte at a time, so that a long run keeps no trace in memory. One sink per server for
 * the whole run: it remembers the last position for the server's next incarnation.
 */
export class BufferedTraceFile implements TraceSink {
  private readonly descriptor: number;
  private position: TracePosition = tracePositionStart;
  private buffered: string[] = [];
  private bufferedBytes = 0;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.descriptor = openSync(path, 'w');
  }

  resume(): TracePosition {
    return this.position;
  }

  append(line: string, position: TracePosition): void {
    this.position = position;
    this.buffered.push(line);
    this.bufferedBytes += line.length + 1;
    if (this.bufferedBytes >= bufferedBytesMax) this.flush();
  }

  flush(): void {
    if (this.buffered.length === 0) return;
    writeSync(this.descriptor, this.buffered.join('\n') + '\n');
    this.buffered = [];
    this.bufferedBytes = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.descriptor);
  }
}

/** The file's last complete line ('' when it has none). */
function lastLine(descriptor: number): string {
  let end = fstatSync(descriptor).size;
  let tail = '';
  while (end > 0) {
    const start = Math.max(0, end - tailChunkBytes);
    const buffer = Buffer.alloc(end - start);
    readSync(descriptor, buffer, 0, buffer.length, start);
    tail = buffer.toString('utf8') + tail;
    end = start;
    const trimmed = tail.endsWith('\n') ? tail.slice(0, -1) : tail;
    const newline = trimmed.lastIndexOf('\n');
    if (newline >= 0) return trimmed.slice(newline + 1);
  }
  return tail.endsWith('\n') ? tail.slice(0, -1) : tail;
}

function positionOf(line: string): TracePosition {
  if (line === '') return tracePositionStart;
  const record = JSON.parse(line) as Partial<TracePosition>;
  const { seq, inc, lamport } = record;
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(inc) || !Number.isSafeInteger(lamport)) {
    throw new Error('the trace file\'s last line is not a trace record');
  }
  return { seq: seq!, inc: inc!, lamport: lamport! };
}
