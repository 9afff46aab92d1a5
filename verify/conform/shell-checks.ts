/**
 * Check (b) of `shardkv conform`: what the node shells did around the spec's steps.
 *
 * - Links: every delivered Raft message was sent first, on that link (sender and receiver as
 *   its id and the sender's step say), with the same content.
 * - Persist before send (spec/raft/types.ts SyncDuty): a message left only after every
 *   `beforeSends` save of its step and of the earlier steps of that incarnation was durable,
 *   i.e. after a `synced` record covering the last such step (its stamp's clock exceeds that
 *   record's; the shell stamps a message when it sends it). A leader's own append
 *   (`thenReport`) and a commitIndex-only hard state (`withNext`) hold nothing back.
 * - Restarts: each restart loads exactly what the node's trace says was durable before
 *   (storage-model.ts).
 * - Reports: a `logDurable` input names an entry the node's durable storage holds, so a leader
 *   counts only its durable copy toward a commit.
 */
import type { Persisted } from '../../spec/raft/types.js';
import { canonicalText } from './canonical.js';
import type { TraceRecord } from '../../impl/trace/schema.js';
import { MalformedTraceError, shown, type Divergence } from './divergence.js';
import {
  applyTracedSave, crashOutcomes, describeStorage, emptyStorage, isSaveEffect,
  sameStorage, storedOf, type StoredState,
} from './storage-model.js';

interface Sent {
  readonly node: string;
  readonly seq: number;
  readonly to: string;
  readonly text: string;
  /** The last step of this incarnation up to the send's with a `beforeSends` save, or 0. */
  readonly gate: number;
}

/** A node's `synced` records in order: the step each covers and its clock. */
interface Synced {
  readonly steps: number[];
  readonly lamports: number[];
}

type Traces = ReadonlyMap<string, readonly TraceRecord[]>;

function shellDivergence(record: TraceRecord, what: string, expected?: string,
  recorded?: string): Divergence {
  return {
    check: 'shell', what, node: record.node, step: record.seq, actor: record.actor,
    lamport: record.lamport,
    ...(expected === undefined ? {} : { expected: shown(expected) }),
    ...(recorded === undefined ? {} : { recorded: shown(recorded) }),
  };
}

/** Whether a step's saves hold back the sends after them (SyncDuty `beforeSends`). */
function gatesSends(record: TraceRecord): boolean {
  return record.effects.some((effect) =>
    isSaveEffect(effect) && (effect as { sync?: unknown }).sync === 'beforeSends');
}

/** The clock of the first `synced` record covering step `gate` (syncs cover in order). */
function syncedClock(synced: Synced | undefined, gate: number): number | undefined {
  if (synced === undefined) return undefined;
  let low = 0;
  let high = synced.steps.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (synced.steps[middle]! >= gate) high = middle;
    else low = middle + 1;
  }
  return synced.lamports[low];
}

/**
 * A delivered message whose send is in no file: when its sender has no trace, or the
 * sender's trace ends before the clock the message left at, the input is incomplete (exit
 * 2), not a divergence. The sender is named by the message id (`node:incarnation:counter`).
 */
function missingSend(traces: Traces, node: string, id: string, sentLamport: number | null):
  void {
  const sender = /^(.+):\d+:\d+$/.exec(id)?.[1];
  if (sender === undefined) return;
  const records = traces.get(sender);
  if (records === undefined) {
    throw new MalformedTraceError(`no trace of ${sender} (${sender}.jsonl): ${node} ` +
      `received its message ${id}`);
  }
  const end = records.at(-1)?.lamport ?? 0;
  if (sentLamport !== null && end < sentLamport) {
    throw new MalformedTraceError(`${sender}.jsonl is truncated: it ends at Lamport clock ` +
      `${end}, before message ${id} left it at ${sentLamport} (${node} received it)`);
  }
}

function sentMessages(traces: Traces): { sent: Map<string, Sent>; synced: Map<string, Synced> } {
  const sent = new Map<string, Sent>();
  const synced = new Map<string, Synced>();
  for (const [node, records] of traces) {
    let peers: readonly string[] = [];
    let gate = 0;
    const own: Synced = { steps: [], lamports: [] };
    synced.set(node, own);
    for (const record of records) {
      if (record.setup !== undefined) peers = record.setup.peers;
      if (record.actor === 'shell') {
        own.steps.push((record.input as { step: number }).step);
        own.lamports.push(record.lamport);
      }
      if (record.actor !== 'raft') continue;
      // A restart loads only what was durable: nothing of the new incarnation waits yet.
      if ((record.input as { type: string }).type === 'restart') gate = 0;
      if (gatesSends(record)) gate = record.seq;
      for (const effect of record.effects as { type: string; to: number; message: unknown;
        id: string }[]) {
        if (effect.type !== 'send') continue;
        sent.set(effect.id, { node, seq: record.seq, to: peers[effect.to] ?? '?',
          text: canonicalText(effect.message), gate });
      }
    }
  }
  return { sent, synced };
}

export function checkLinks(traces: Traces): Divergence | null {
  const { sent, synced } = sentMessages(traces);
  for (const [node, records] of traces) {
    let peers: readonly string[] = [];
    for (const record of records) {
      if (record.setup !== undefined) peers = record.setup.peers;
      const input = record.input as { type: string; from: number; message: unknown;
        id: string | null; sentLamport: number | null };
      if (record.actor !== 'raft' || input.type !== 'message') continue;
      const origin = input.id === null ? undefined : sent.get(input.id);
      if (origin === undefined) {
        if (input.id !== null) missingSend(traces, node, input.id, input.sentLamport);
        return shellDivergence(record, `delivered message ${input.id} was never sent`);
      }
      if (origin.to !== node || origin.node !== peers[input.from]) {
        return shellDivergence(record, `message ${input.id} was sent on another link`,
          `${origin.node} -> ${origin.to}`, `${peers[input.from]} -> ${node}`);
      }
      const text = canonicalText(input.message);
      if (origin.text !== text) {
        return shellDivergence(record, `message ${input.id} differs from the one sent`,
          origin.text, text);
      }
      if (origin.gate === 0) continue;
      const syncedAt = syncedClock(synced.get(origin.node), origin.gate);
      if (syncedAt === undefined || syncedAt >= input.sentLamport!) {
        return shellDivergence(record, `message ${input.id} (step ${origin.seq}) left ` +
          `${origin.node} before the persist of its step ${origin.gate} was synced`);
      }
    }
  }
  return null;
}

interface Waiting {
  readonly seq: number;
  readonly saves: ReturnType<typeof savesOf>;
}

/**
 * Each restart of the node loads what its earlier records made durable, and each storage
 * report (`logDurable`) names an entry that is durable.
 */
export function checkRestarts(records: readonly TraceRecord[]): Divergence | null {
  let durable: StoredState = emptyStorage;
  let waiting: Waiting[] = [];
  // Every entry (index/term) that was durable at some point: a report may arrive after a
  // newer leader's entries replaced the one it names (the spec then ignores it).
  const everDurable = new Set<string>(['0/0']);
  for (const record of records) {
    const input = record.input as { type: string; step?: number; persisted?: unknown;
      index?: number; term?: number };
    if (record.actor === 'shell') {
      const covered = waiting.filter((item) => item.seq <= input.step!);
      for (const item of covered) {
        durable = item.saves.reduce((state, save) => applyTracedSave(state, save), durable);
      }
      if (covered.length > 0) rememberEntries(everDurable, durable);
      waiting = waiting.slice(covered.length);
    }
    if (record.actor !== 'raft') continue;
    if (input.type === 'restart') {
      const loaded = storedOf(input.persisted as Persisted<unknown, unknown>);
      const outcomes = crashOutcomes(durable, waiting.flatMap((item) => item.saves));
      if (!outcomes.some((outcome) => sameStorage(outcome, loaded))) {
        return { ...shellDivergence(record, 'the restart loaded other than what was persisted',
          describeStorage(durable), describeStorage(loaded)), before: [] };
      }
      durable = loaded;
      waiting = [];
      rememberEntries(everDurable, durable);
    }
    const reported = `${input.index}/${input.term}`;
    if (input.type === 'logDurable' && !everDurable.has(reported)) {
      return { ...shellDivergence(record, `the storage reported entry ${input.index} (term ` +
        `${input.term}) durable before a sync covered it: the leader would count an undurable ` +
        'copy toward a commit', describeStorage(durable)), before: [] };
    }
    const saves = savesOf(record);
    if (saves.length > 0) waiting.push({ seq: record.seq, saves });
  }
  return null;
}

/** Adds the durable storage's entries (and its snapshot's last) to `seen`. */
function rememberEntries(seen: Set<string>, durable: StoredState): void {
  const base = durable.snapshot?.lastIncludedIndex ?? 0;
  if (durable.snapshot !== null) seen.add(`${base}/${durable.snapshot.lastIncludedTerm}`);
  // Only the tail can be new since the last time: stop at the first entry already seen.
  for (let at = durable.entries.length - 1; at >= 0; at--) {
    const key = `${base + at + 1}/${durable.entries[at]!.term}`;
    if (seen.has(key)) break;
    seen.add(key);
  }
}

function savesOf(record: TraceRecord) {
  return record.effects.filter(isSaveEffect);
}
