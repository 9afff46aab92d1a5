/**
 * Raft's known bugs (DESIGN §3's catalog), one entry each; the `raft` model checks them at
 * their bounds. `RaftOptions.bugs` holds the switches, all off unless named; each is consulted
 * at exactly the place its entry's comment names.
 */
import { assertCatalog, bugNames, type BugSwitches, type KnownBug } from '../bug-catalog.js';

export const raftBugs = [
  {
    // maybeCommit (replication.ts) counts replicas of an earlier term's entry.
    name: 'commit-prev-term',
    description:
      'a leader commits an entry of an earlier term by counting replicas (Raft paper, Figure 8)',
    breaks: ['StateMachineSafety', 'LeaderCompleteness'],
    bounds: {
      maxTerm: 4, maxLog: 2, maxRestarts: 0, maxCompactions: 0, maxReads: 0, symmetry: true,
    },
  },
  {
    // voteGranted (election.ts) skips the candidate-log-up-to-date check.
    name: 'vote-ignores-log',
    description:
      'a server grants its vote without checking that the candidate log is up to date (§5.4.1)',
    breaks: ['LeaderCompleteness'],
    bounds: { maxTerm: 2, maxLog: 1, maxRestarts: 0, maxCompactions: 0, maxReads: 0 },
  },
  {
    // hardStateOf (persistence.ts) leaves the vote out.
    name: 'forget-vote-on-restart',
    description: 'votedFor is not persisted, so a restarted server can vote twice in one term',
    breaks: ['ElectionSafety'],
    bounds: { maxTerm: 1, maxLog: 1, maxRestarts: 1, maxCompactions: 0, maxReads: 0 },
  },
  {
    // requestRead (read-index.ts) answers at once, without a quorum's confirmation.
    name: 'read-without-quorum',
    description:
      'a leader serves a ReadIndex read without a heartbeat round confirming it still leads ' +
      '(dissertation §6.4): a deposed leader answers with a stale index',
    breaks: ['LinearizableReads'],
    bounds: { maxTerm: 2, maxLog: 2, maxRestarts: 0, maxCompactions: 0 },
  },
  {
    // campaign (election.ts) raises the term already for the pre-vote.
    name: 'prevote-raises-term',
    description:
      'with PreVote, a pre-candidate raises its term before a quorum agreed (§9.6): an ' +
      'isolated server comes back with a higher term and deposes the leader',
    breaks: ['NoTermRaisedAlone'],
    bounds: { preVote: true, maxRestarts: 0, maxCompactions: 0, maxReads: 0 },
  },
  {
    // ignoresVoteInLease (election.ts) lets a vote request through a leader lease.
    name: 'vote-during-lease',
    description:
      'with CheckQuorum, a server that hears from a live leader still heeds a higher-term ' +
      'vote request (§9.6): a returning server deposes a healthy leader',
    breaks: ['LeaseRespected'],
    bounds: { checkQuorum: true, maxRestarts: 0, maxCompactions: 0, maxReads: 0 },
  },
  {
    // mergeEntries (replication.ts) cuts the log after prevLogIndex even where it matches.
    name: 'truncate-on-every-append',
    description:
      'a follower cuts its log after the entries of every AppendEntries, even where they ' +
      'match (§5.3 truncates only at a conflict): a late duplicate erases a committed entry',
    breaks: ['CommittedDurable'],
    bounds: {
      maxTerm: 1, maxLog: 2, maxMsgs: 2, maxRestarts: 0, maxCompactions: 0, maxReads: 0,
    },
  },
  {
    // handleInstallSnapshotRequest (compaction.ts) installs any snapshot newer than its own,
    // even one older than its commit index (only a snapshot past what it has is news).
    name: 'snapshot-rollback',
    description:
      'a follower installs a snapshot older than its commit index (§7), so its commit ' +
      'index and its application go back and entries are applied again',
    breaks: ['CommitMonotonic'],
    bounds: { maxTerm: 1, maxLog: 2, maxMsgs: 2, maxRestarts: 0, maxReads: 0, symmetry: true },
  },
  {
    // handleAppendEntriesRequest (replication.ts) commits without the `apply` effect.
    name: 'follower-skips-apply',
    description:
      'a follower advances its commit index without handing the entries to its application',
    breaks: ['AppliedUpToCommit'],
    bounds: { maxTerm: 1, maxLog: 1, maxRestarts: 0, maxCompactions: 0, maxReads: 0 },
  },
  {
    // handleVoteResponse (election.ts) expects a pre-vote grant of its own term, not term + 1.
    name: 'prevote-response-term',
    description:
      'with PreVote, a pre-candidate counts only pre-vote grants of its current term, but ' +
      'they carry the term it asked for (§9.6): it never campaigns, no leader is ever elected',
    breaks: ['LeaderElected'],
    bounds: { preset: 'liveness-9.6' },
  },
  {
    // handleVoteResponse (election.ts) counts a granted vote of an older term.
    name: 'count-stale-vote',
    description:
      'a candidate counts a vote granted in an older term as one for its current term (§5.1 ' +
      'drops stale replies): with a vote granted to another candidate in this term, two ' +
      'leaders share the term',
    breaks: ['ElectionSafety'],
    bounds: { maxTerm: 2, maxLog: 1, maxRestarts: 0, maxCompactions: 0, maxReads: 0 },
  },
  {
    // handleElectionTimeout (election.ts) keeps the leader's record of whom it heard from.
    name: 'leader-never-steps-down',
    description:
      'with CheckQuorum, a leader never forgets whom it heard from (§9.6 checks each ' +
      'election timeout anew): once it heard from a quorum, cut off, it leads for ever',
    breaks: ['LeaderStepsDown'],
    bounds: { preset: 'liveness-9.6', servers: 2 },
  },
] as const satisfies readonly KnownBug[];
assertCatalog(raftBugs, raftBugs);

export type RaftBugName = (typeof raftBugs)[number]['name'];
export const raftBugNames = bugNames(raftBugs);

/** The switches a node reads (`RaftOptions.bugs`). */
export type RaftBugs = BugSwitches<RaftBugName>;
