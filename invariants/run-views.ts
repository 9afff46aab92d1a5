/**
 * The views a tool that watches a run builds from what it sees, one sighting at a time: the
 * simulator's monitor from the live servers' views after every event, conform from the
 * observations it merged in happens-before order. Both evaluate the library's invariants on
 * them, each on the part a sighting changed (invariant.ts).
 *
 * - ElectionRecord: a Raft group's elections (ElectionSafety's view), its servers numbered in
 *   the order they were first seen leading.
 * - CommittedRecord: a Raft group's committed log as first seen, entry by entry
 *   (StateMachineSafety's body compares every later sighting of an index with it).
 * - LatestGroupStates: each replica group's latest applied state, that of its replica of
 *   highest applied index seen so far, and the one it replaced (AtMostOneServer, StaleRejected).
 */
import { assert } from '../spec/assert.js';
import { explainElectionSafety, oneLeaderInTerm, type ElectionView } from './raft-elections.js';
import { isCommittedEntry } from './raft-view.js';
import type { GroupView } from './shard-view.js';

/** The most servers a group's election record numbers (one bit each). */
export const recordedServersMax = 31;

export class ElectionRecord implements ElectionView {
  readonly elected: number[] = [];
  private readonly names: string[] = [];

  /** `name` leads in `term`: whether the term still has one leader. */
  note(term: number, name: string): boolean {
    let id = this.names.indexOf(name);
    if (id < 0) id = this.names.push(name) - 1;
    assert(id < recordedServersMax, `more than ${recordedServersMax} servers led one group`);
    this.elected[term] = (this.elected[term] ?? 0) | (1 << id);
    return oneLeaderInTerm(this.elected[term]);
  }

  explain(): string {
    return explainElectionSafety(this, (id) => this.names[id]!);
  }

  /** How many terms had a leader. */
  get termsWithLeader(): number {
    return this.elected.filter((mask) => mask !== 0).length;
  }
}

/** An entry as a run's tool compares it: its term, and a command key (null: not compared). */
export interface SeenEntry<Key> {
  readonly term: number;
  readonly command: Key | null;
  /** Who was seen committing (or applying) it first. */
  readonly server: string;
}

export class CommittedRecord<Key> {
  /** committed[k - base]: the entry first seen committed at index k. */
  private committed: SeenEntry<Key>[] = [];
  private base = 0;
  /** Indices below this were forgotten (forgetBelow): sightings there are not compared. */
  private forgottenBelow = 0;
  /** Sightings below the forgotten indices, not compared. */
  uncompared = 0;

  /** `entry` is seen committed at `index`: the entry committed there first, if it differs. */
  note(index: number, entry: SeenEntry<Key>): SeenEntry<Key> | null {
    assert(index >= 1, `committed index ${index}`);
    if (index < this.forgottenBelow) {
      this.uncompared++;
      return null;
    }
    const first = this.committed[index - this.base];
    if (first === undefined) this.committed[index - this.base] = entry;
    return first === undefined || isCommittedEntry(first, entry.term, entry.command)
      ? null : first;
  }

  /**
   * No server will be seen at an index below `index` again (every one has compacted past it,
   * conform's CompactionFloors): those entries are dropped, so a long run keeps a window.
   */
  forgetBelow(index: number): void {
    if (index <= this.forgottenBelow) return;
    this.forgottenBelow = index;
    const dropped = Math.min(index - this.base, this.committed.length);
    // Dropped in batches: shifting the window at every call would cost its length each time.
    if (dropped >= forgetBatchMin && dropped * 2 >= this.committed.length) {
      this.committed = this.committed.slice(dropped);
      this.base += dropped;
    }
  }

  /** Indices kept above the forgotten ones (those wait for their batch to be dropped). */
  get retained(): number {
    return Math.max(0, this.committed.length - Math.max(0, this.forgottenBelow - this.base));
  }
}

/** The fewest forgotten slots a CommittedRecord drops at once. */
const forgetBatchMin = 1024;

/** A group's applied state at a replica, with what names it in a witness. */
export interface AppliedGroupState<Group extends GroupView> {
  readonly appliedIndex: number;
  readonly replica: string;
  readonly state: Group;
}

export class LatestGroupStates<Group extends GroupView> {
  private readonly latest = new Map<number, AppliedGroupState<Group>>();

  /**
   * A replica of group `state.gid` shows `state` at `appliedIndex`. When it is the group's
   * newest, it becomes the group's latest, and the latest before it is returned (null when
   * there was none) so StaleRejected can compare them; undefined when it is not newer.
   */
  offer(applied: AppliedGroupState<Group>): AppliedGroupState<Group> | null | undefined {
    const known = this.latest.get(applied.state.gid);
    if (known !== undefined && known.appliedIndex >= applied.appliedIndex) return undefined;
    this.latest.set(applied.state.gid, applied);
    return known ?? null;
  }

  /** The latest applied states, in the order the groups were first seen. */
  states(): AppliedGroupState<Group>[] {
    return [...this.latest.values()];
  }
}
