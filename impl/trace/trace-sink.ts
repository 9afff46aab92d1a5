/**
 * Where a node's trace lines go. The simulator keeps them in memory (deterministic, written
 * out at the end of a run); a cluster process appends them to DIR/traces/<node>.jsonl
 * (impl/process/trace-file.ts). A new incarnation resumes from the last line's counters
 * (schema.ts TracePosition).
 */
import { tracePositionStart, type TracePosition } from './schema.js';

export interface TraceSink {
  /** The counters of the last line written (a new incarnation continues from them). */
  resume(): TracePosition;
  append(line: string, position: TracePosition): void;
}

export class MemoryTraceSink implements TraceSink {
  readonly lines: string[] = [];
  private position: TracePosition = tracePositionStart;

  resume(): TracePosition {
    return this.position;
  }

  append(line: string, position: TracePosition): void {
    this.lines.push(line);
    this.position = position;
  }
}
