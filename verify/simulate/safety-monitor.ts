/**
 * The invariants the simulator checks after every event, from the servers' own state
 * (`Server.view()`), never from what the simulator believes happened:
 *
 * - ElectionSafety (Raft §5.2): at most one leader per term in each Raft group. A leader is
 *   remembered for the whole run (term -> name), so two leaders of one term are caught even
 *   when they never lead at the same moment.
 * - StateMachineSafety (Raft §5.4.3): no two servers of a group commit different entries at
 *   one index. The first term seen committed at each index is remembered; every server's
 *   committed entries are compared with it once.
 * - AtMostOneServer (DESIGN §3): at most one group serves each shard. A group's applied
 *   states are all prefixes of one sequence, so the state of highest applied index ever seen
 *   among its replicas is the group's latest: a replica that lags, or is down, cannot make a
 *   group look as if it still served a shard it froze.
 * - StaleRejected (DESIGN §3): a message of an older migration identity changes nothing, so
 *   the epoch of the identity a group last took part in for a shard never goes down.
 * - ConfigsInOrder (DESIGN §3: configurations are applied one at a time, N -> N+1, never
 *   skipped): every controller state's intent in flight is for `current + 1`.
 */
import type { GroupState, ShardState } from '../../spec/group/index.js';
import type { ServerView } from '../../impl/node/api.js';

export interface Violation {
  readonly invariant: string;
  readonly detail: string;
}

type SeenView = Pick<ServerView, 'raft' | 'appliedIndex' | 'state'>;

interface LatestGroupState {
  readonly appliedIndex: number;
  readonly name: string;
  readonly state: GroupState;
}

export class SafetyMonitor {
  /** Raft group -> term -> the leader of that term. */
  private readonly leaders = new Map<string, Map<number, string>>();
  /** Raft group -> committed index -> the term of the entry committed there. */
  private readonly committedTerms = new Map<string, number[]>();
  /** Server -> the highest committed index already compared. */
  private readonly comparedUpTo = new Map<string, number>();
  private readonly latestGroups = new Map<number, LatestGroupState>();
  private groupsChanged = false;
  /**
   * Server -> the Raft node, applied index and applied state it showed last: states are
   * immutable, so the same three mean nothing changed and nothing needs checking again.
   */
  private readonly lastSeen = new Map<string, SeenView>();

  /** Checks the views of the live servers (a down server has none). */
  observe(views: readonly ServerView[]): Violation | null {
    this.groupsChanged = false;
    for (const view of views) {
      const seen = this.lastSeen.get(view.name);
      if (seen !== undefined && seen.raft === view.raft && seen.state === view.state &&
        seen.appliedIndex === view.appliedIndex) continue;
      this.lastSeen.set(view.name, view);
      const violation = this.checkLeader(view) ?? this.checkCommitted(view);
      if (violation !== null) return violation;
      const problem = view.kind === 'group' ? this.noteGroupState(view) : checkIntent(view);
      if (problem !== null) return problem;
    }
    return this.groupsChanged ? this.checkOneServerPerShard() : null;
  }

  /** The latest applied state of each group seen so far, by gid. */
  groupStates(): ReadonlyMap<number, GroupState> {
    return new Map([...this.latestGroups].map(([gid, latest]) => [gid, latest.state]));
  }

  /** How many leaders (distinct terms) each Raft group had. */
  termsWithLeader(): number {
    let terms = 0;
    for (const byTerm of this.leaders.values()) terms += byTerm.size;
    return terms;
  }

  private checkLeader(view: ServerView): Violation | null {
    if (view.raft.role !== 'leader') return null;
    const group = raftGroupOf(view);
    let byTerm = this.leaders.get(group);
    if (byTerm === undefined) this.leaders.set(group, (byTerm = new Map()));
    const term = view.raft.currentTerm;
    const known = byTerm.get(term);
    if (known === undefined) byTerm.set(term, view.name);
    if (known === undefined || known === view.name) return null;
    return {
      invariant: 'ElectionSafety',
      detail: `${group}: ${known} and ${view.name} both led term ${term}`,
    };
  }

  private checkCommitted(view: ServerView): Violation | null {
    const raft = view.raft;
    const group = raftGroupOf(view);
    let terms = this.committedTerms.get(group);
    if (terms === undefined) this.committedTerms.set(group, (terms = []));
    const snapshotIndex = raft.snapshot?.lastIncludedIndex ?? 0;
    const lastIndex = snapshotIndex + raft.log.length;
    const upTo = Math.min(raft.commitIndex, lastIndex);
    let index = Math.max(this.comparedUpTo.get(view.name) ?? 0, snapshotIndex) + 1;
    for (; index <= upTo; index++) {
      const term = raft.log[index - snapshotIndex - 1]!.term;
      const first = terms[index];
      if (first === undefined) terms[index] = term;
      else if (first !== term) {
        return {
          invariant: 'StateMachineSafety',
          detail: `${group}: ${view.name} committed an entry of term ${term} at index ` +
            `${index}, where an entry of term ${first} was committed before`,
        };
      }
    }
    if (upTo > (this.comparedUpTo.get(view.name) ?? 0)) this.comparedUpTo.set(view.name, upTo);
    return null;
  }

  private noteGroupState(view: ServerView & { kind: 'group' }): Violation | null {
    const latest = this.latestGroups.get(view.gid);
    if (latest !== undefined && latest.appliedIndex >= view.appliedIndex) return null;
    this.latestGroups.set(view.gid, {
      appliedIndex: view.appliedIndex, name: view.name, state: view.state,
    });
    this.groupsChanged = true;
    if (latest === undefined || latest.state === view.state) return null;
    for (let shard = 0; shard < view.state.shards.length; shard++) {
      const before = latest.state.shards[shard]!;
      const after = view.state.shards[shard]!;
      if ((after.identity?.epoch ?? 0) < (before.identity?.epoch ?? 0)) {
        return {
          invariant: 'StaleRejected',
          detail: `group ${view.gid} (${view.name} at index ${view.appliedIndex}) went back ` +
            `for shard ${shard} from ${describeRecord(before)} to ${describeRecord(after)}`,
        };
      }
    }
    return null;
  }

  private checkOneServerPerShard(): Violation | null {
    const servers = new Map<number, string[]>();
    for (const [gid, latest] of this.latestGroups) {
      latest.state.shards.forEach((record, shard) => {
        if (record.phase !== 'serving') return;
        const list = servers.get(shard) ?? [];
        list.push(`${gid} (${latest.name} at index ${latest.appliedIndex})`);
        servers.set(shard, list);
      });
    }
    for (const [shard, list] of servers) {
      if (list.length > 1) {
        return {
          invariant: 'AtMostOneServer',
          detail: `shard ${shard} is served by groups ${list.join(' and ')}`,
        };
      }
    }
    return null;
  }
}

function raftGroupOf(view: ServerView): string {
  return view.kind === 'controller' ? 'controller' : `g${view.gid}`;
}

function checkIntent(view: ServerView & { kind: 'controller' }): Violation | null {
  const { next, current } = view.state;
  if (next === null || next.num === current + 1) return null;
  return {
    invariant: 'ConfigsInOrder',
    detail: `${view.name} (at index ${view.appliedIndex}) plans configuration ${next.num} ` +
      `while configuration ${current} is current`,
  };
}

function describeRecord(record: ShardState): string {
  const identity = record.identity;
  const move = identity === null ? 'no identity'
    : `epoch ${identity.epoch} (${identity.src} -> ${identity.dst})`;
  return `${move}, ${record.phase}`;
}
