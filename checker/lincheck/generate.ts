/**
 * Histories that are linearizable by construction, for tests and the bench: clients run
 * operations against a real sequential KV store (a Map), and a schedule decides the
 * interleaving of three events per operation: call, take effect (the linearization point),
 * return. An operation given up by its client (outcome unknown) may take effect later, while
 * other operations run, or never. The schedule comes from `choose`, so a seeded generator and
 * fast-check's shrinking arrays both drive it.
 */
import { ok as assert } from 'node:assert';
import type { HistoryOperation } from './history.js';

export interface GenerateOptions {
  readonly operations: number;
  readonly clients: number;
  readonly keys: number;
  /** Chance (0..1) that a client gives up on an operation, whose outcome is then unknown. */
  readonly unknownRate?: number;
}

/** Returns an integer in [0, bound). */
export type Choose = (bound: number) => number;

interface Pending {
  readonly client: number;
  readonly op: HistoryOperation['op'];
  readonly key: string;
  readonly value: string | undefined;
  readonly call: number;
  readonly unknown: boolean;
  applied: boolean;
  output?: string;
}

/** A deterministic random stream (mulberry32) for seeded histories. */
export function seededChoose(seed: number): Choose {
  let state = seed >>> 0;
  return (bound) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return Math.floor((((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296) * bound);
  };
}

export function generateHistory(options: GenerateOptions, choose: Choose): HistoryOperation[] {
  const { operations: total, clients, keys, unknownRate = 0 } = options;
  assert(clients >= 1 && keys >= 1 && total >= 0, 'at least one client and one key');
  const store = new Map<string, string>();
  const history: HistoryOperation[] = [];
  const active: (Pending | undefined)[] = new Array<Pending | undefined>(clients).fill(undefined);
  const orphans: Pending[] = [];
  let started = 0;
  let time = 0;
  // Every event makes progress: at most three per operation plus one per late effect.
  const eventsMax = total * 4 + 1;
  const ready: number[] = [];
  for (let event = 0; event < eventsMax; event++) {
    ready.length = 0;
    active.forEach((pending, client) => {
      if (pending !== undefined || started < total) ready.push(client);
    });
    if (ready.length === 0) break;
    const pick = choose(ready.length + (orphans.length > 0 ? 1 : 0));
    if (pick === ready.length) {
      // An operation whose client gave up takes effect late.
      const orphan = orphans.splice(choose(orphans.length), 1)[0]!;
      apply(store, orphan);
      continue;
    }
    const actor = ready[pick]!;
    const pending = active[actor];
    if (pending === undefined) {
      active[actor] = callOperation(actor, started, time++, keys, unknownRate, choose);
      started++;
    } else if (!pending.applied && !(pending.unknown && choose(2) === 0)) {
      apply(store, pending);
    } else {
      history.push(finish(pending, time++, orphans));
      active[actor] = undefined;
    }
  }
  assert(history.length === total, `every operation finished (${history.length} of ${total})`);
  return history.map((operation, index) => ({ ...operation, line: index + 1 }));
}

function callOperation(
  client: number, sequence: number, call: number, keys: number, unknownRate: number, choose: Choose,
): Pending {
  const roll = choose(4);
  const op = roll < 2 ? 'get' : roll === 2 ? 'put' : 'append';
  const key = `k${choose(keys)}`;
  const unknown = unknownRate > 0 && choose(1000) < unknownRate * 1000;
  return {
    client, op, key, call, unknown, applied: false, output: undefined,
    value: op === 'get' ? undefined : `${client}.${sequence};`,
  };
}

function apply(store: Map<string, string>, pending: Pending): void {
  assert(!pending.applied, 'an operation takes effect once');
  const current = store.get(pending.key) ?? '';
  if (pending.op === 'get') pending.output = current;
  else store.set(pending.key, pending.op === 'put' ? pending.value! : current + pending.value!);
  pending.applied = true;
}

/** The history line: an unknown outcome hides return and output; it may still apply later. */
function finish(pending: Pending, time: number, orphans: Pending[]): HistoryOperation {
  const { client, op, key, value, call } = pending;
  if (pending.unknown) {
    if (!pending.applied) orphans.push(pending);
    return { client: String(client), op, key, value, output: undefined, call,
      return: undefined, outcome: 'unknown', line: 0 };
  }
  assert(pending.applied, 'a completed operation took effect before it returned');
  return { client: String(client), op, key, value, output: pending.output, call,
    return: time, outcome: 'ok', line: 0 };
}

/** The history as the JSON lines of CONTRACT (lines renumbered in file order). */
export function historyText(history: readonly HistoryOperation[]): string {
  return history.map(({ line: _line, outcome, ...fields }) =>
    JSON.stringify(outcome === 'ok' ? fields : { ...fields, outcome })).join('\n') + '\n';
}
