/**
 * Check (b) of `shardkv conform`: what the node shells did around the spec's steps.
 *
 * - Links: every delivered Raft message was sent first, on that link (sender and receiver as
 *   its id and the sender's step say), with the same content.
 * - Persist before send: a message sent by a step with save effects left only after the
 *   shell reported that step's persist synced (its stamp's clock exceeds the `synced`
 *   record's; the shell stamps a message when it sends it).
 * - Restarts: each restart loads exactly what the node's trace says was durable before
 *   (storage-model.ts).
 */
import type { Persisted } from '../../spec/raft/types.js';
import { canonicalText } from './canonical.js';
import type { TraceRecord } from '../../impl/trace/schema.js';
import { shown, type Divergence } from './divergence.js';
import {
  applySave, crashOutcomes, describeStorage, emptyStorage, isSaveEffect, sameStorage, storedOf,
  type StoredState,
} from './storage-model.js';

interface Sent {
  readonly node: string;
  readonly seq: number;
  readonly to: string;
  readonly text: string;
  readonly saves: boolean;
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

function sentMessages(traces: Traces): { sent: Map<string, Sent>; synced: Map<string, number> } {
  const sent = new Map<string, Sent>();
  const synced = new Map<string, number>();
  for (const [node, records] of traces) {
    let peers: readonly string[] = [];
    for (const record of records) {
      if (record.setup !== undefined) peers = record.setup.peers;
      if (record.actor === 'shell') {
        synced.set(`${node}#${(record.input as { step: number }).step}`, record.lamport);
      }
      if (record.actor !== 'raft') continue;
      const saves = record.effects.some(isSaveEffect);
      for (const effect of record.effects as { type: string; to: number; message: unknown;
        id: string }[]) {
        if (effect.type !== 'send') continue;
        sent.set(effect.id, { node, seq: record.seq, to: peers[effect.to] ?? '?',
          text: canonicalText(effect.message), saves });
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
      const syncedAt = synced.get(`${origin.node}#${origin.seq}`);
      if (origin.saves && (syncedAt === undefined || syncedAt >= input.sentLamport!)) {
        return shellDivergence(record, `message ${input.id} left ${origin.node} before the ` +
          `persist of its step ${origin.seq} was synced`);
      }
    }
  }
  return null;
}

/** Each restart of the node loads what its earlier records made durable. */
export function checkRestarts(records: readonly TraceRecord[]): Divergence | null {
  let durable: StoredState = emptyStorage;
  let pending: { seq: number; saves: ReturnType<typeof savesOf> } | null = null;
  for (const record of records) {
    const input = record.input as { type: string; step?: number; persisted?: unknown };
    if (record.actor === 'shell' && pending !== null && input.step === pending.seq) {
      durable = pending.saves.reduce((state, save) => applySave(state, save), durable);
      pending = null;
    }
    if (record.actor !== 'raft') continue;
    if (input.type === 'restart') {
      const loaded = storedOf(input.persisted as Persisted<unknown, unknown>);
      const outcomes = crashOutcomes(durable, pending?.saves ?? []);
      if (!outcomes.some((outcome) => sameStorage(outcome, loaded))) {
        return { ...shellDivergence(record, 'the restart loaded other than what was persisted',
          describeStorage(durable), describeStorage(loaded)), before: [] };
      }
      durable = loaded;
      pending = null;
    }
    const saves = savesOf(record);
    if (saves.length > 0) pending = { seq: record.seq, saves };
  }
  return null;
}

function savesOf(record: TraceRecord) {
  return record.effects.filter(isSaveEffect);
}
