/**
 * Check (b) of `shardkv conform`, the storage: each restart of a node loads what its earlier
 * records made durable (storage-model.ts), and each storage report (`logDurable`) names an
 * entry the node's durable storage holds, so a leader counts only its durable copy toward a
 * commit. Fed one record at a time; after the first divergence it only counts.
 */
import type { Persisted } from '../../spec/raft/types.js';
import type { TraceRecord } from '../../impl/trace/schema.js';
import type { Divergence } from './divergence.js';
import { shellDivergence } from './link-ledger.js';
import {
  applyTracedSave, crashOutcomes, describeStorage, emptyStorage, isSaveEffect,
  sameStorage, storedOf, type StoredState,
} from './storage-model.js';

interface Waiting {
  readonly seq: number;
  readonly saves: ReturnType<typeof savesOf>;
}

export class RestartChecker {
  divergence: Divergence | null = null;
  private durable: StoredState = emptyStorage;
  private waiting: Waiting[] = [];
  // Every entry (index/term) that was durable at some point: a report may arrive after a
  // newer leader's entries replaced the one it names (the spec then ignores it).
  private readonly everDurable = new Set<string>(['0/0']);

  next(record: TraceRecord): void {
    if (this.divergence !== null) return;
    const input = record.input as { type: string; step?: number; persisted?: unknown;
      index?: number; term?: number };
    if (record.actor === 'shell') this.synced(input.step!);
    if (record.actor !== 'raft') return;
    if (input.type === 'restart') {
      const loaded = storedOf(input.persisted as Persisted<unknown, unknown>);
      const outcomes = crashOutcomes(this.durable, this.waiting.flatMap((item) => item.saves));
      if (!outcomes.some((outcome) => sameStorage(outcome, loaded))) {
        this.divergence = { ...shellDivergence(record, 'the restart loaded other than what ' +
          'was persisted', describeStorage(this.durable), describeStorage(loaded)), before: [] };
        return;
      }
      this.durable = loaded;
      this.waiting = [];
      rememberEntries(this.everDurable, this.durable);
    }
    const reported = `${input.index}/${input.term}`;
    if (input.type === 'logDurable' && !this.everDurable.has(reported)) {
      this.divergence = { ...shellDivergence(record, `the storage reported entry ` +
        `${input.index} (term ${input.term}) durable before a sync covered it: the leader ` +
        'would count an undurable copy toward a commit', describeStorage(this.durable)),
        before: [] };
      return;
    }
    const saves = savesOf(record);
    if (saves.length > 0) this.waiting.push({ seq: record.seq, saves });
  }

  /** A `synced` record: the saves of every step up to `step` are durable. */
  private synced(step: number): void {
    const covered = this.waiting.filter((item) => item.seq <= step);
    for (const item of covered) {
      this.durable = item.saves.reduce((state, save) => applyTracedSave(state, save),
        this.durable);
    }
    if (covered.length > 0) rememberEntries(this.everDurable, this.durable);
    this.waiting = this.waiting.slice(covered.length);
  }
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
