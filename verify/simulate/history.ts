/**
 * The clients' history, in CONTRACT's format ("Histories"), for `lincheck`. Times are ticks
 * of one counter that every call and every return advances, so the real-time order of the
 * simulation is exact: an operation precedes another exactly when it returned before the
 * other was called, even within one millisecond of simulated time. An operation whose
 * result its client never learned (the clerk said unknown or refused, or the run ended) is
 * recorded with outcome unknown: it may have taken effect at any moment after its call. A
 * definite refusal that wrote nothing (a value over the size limit) leaves the history.
 */
import { assert } from '../../spec/assert.js';

export type KeyValueOperation = 'get' | 'put' | 'append';

export interface RecordedOperation {
  readonly client: string;
  readonly op: KeyValueOperation;
  readonly key: string;
  /** The value written; undefined for a get. */
  readonly value: string | undefined;
  readonly call: number;
  return: number | undefined;
  output: string | undefined;
  outcome: 'ok' | 'unknown' | 'pending';
}

export class HistoryRecorder {
  private ticks = 0;
  private readonly operations: RecordedOperation[] = [];

  /** Records the call of an operation; returns its handle for `returned` or `unknown`. */
  call(client: string, op: KeyValueOperation, key: string, value?: string): RecordedOperation {
    assert((op === 'get') === (value === undefined), `${op} with value ${value}`);
    const operation: RecordedOperation = {
      client, op, key, value, call: ++this.ticks,
      return: undefined, output: undefined, outcome: 'pending',
    };
    this.operations.push(operation);
    return operation;
  }

  /** The operation's result is known: `output` is a get's value. */
  returned(operation: RecordedOperation, output?: string): void {
    assert(operation.outcome === 'pending', 'an operation completes once');
    assert((operation.op === 'get') === (output !== undefined), 'only a get has an output');
    operation.return = ++this.ticks;
    operation.output = output;
    operation.outcome = 'ok';
  }

  /**
   * The group refused the operation with its definite answer, which writes nothing whatever
   * the attempts: it leaves the history, as if never called (lincheck would otherwise search
   * every place it might have taken effect).
   */
  refused(operation: RecordedOperation): void {
    assert(operation.outcome === 'pending', 'an operation completes once');
    this.operations.splice(this.operations.indexOf(operation), 1);
  }

  unknown(operation: RecordedOperation): void {
    assert(operation.outcome === 'pending', 'an operation completes once');
    operation.outcome = 'unknown';
  }

  /** The current tick: every later call is after everything that returned until now. */
  now(): number {
    return this.ticks;
  }

  all(): readonly RecordedOperation[] {
    return this.operations;
  }

  counts(): { readonly ok: number; readonly unknown: number; readonly pending: number } {
    let ok = 0;
    let unknown = 0;
    for (const operation of this.operations) {
      if (operation.outcome === 'ok') ok++;
      else if (operation.outcome === 'unknown') unknown++;
    }
    return { ok, unknown, pending: this.operations.length - ok - unknown };
  }

  /** JSON lines for `shardkv lincheck`; operations still pending are unknown. */
  toJsonLines(): string {
    return this.operations.map((operation) => JSON.stringify({
      client: operation.client,
      op: operation.op,
      key: operation.key,
      ...(operation.value === undefined ? {} : { value: operation.value }),
      ...(operation.outcome === 'ok'
        ? { ...(operation.output === undefined ? {} : { output: operation.output }),
          call: operation.call, return: operation.return }
        : { call: operation.call, outcome: 'unknown' }),
    })).join('\n') + '\n';
  }
}
