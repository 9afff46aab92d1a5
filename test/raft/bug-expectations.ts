// The raft catalog's expected findings, shared by bugs.test.ts (quick tier) and
// figure-8.test.ts and bug-bounds.test.ts (the full tier's long searches).
// Lengths pinned from the checker's own shortest counterexamples (BFS), read step by step.
// A counterexample in which a leader commits is one step longer than before the disk followed
// spec/raft's sync duties: the leader's Sync, after which it counts its own copy.
export const expected = [
  // Figure 8 of the Raft paper with no-op entries: four elections, 29 steps (up to renaming).
  { bug: 'commit-prev-term', invariant: 'LeaderCompleteness', length: 29, slow: true },
  // §5.4.1: an empty log wins a vote after the no-op of term 1 was committed.
  { bug: 'vote-ignores-log', invariant: 'LeaderCompleteness', length: 12, slow: false },
  // A restarted server votes a second time in term 1: two leaders.
  { bug: 'forget-vote-on-restart', invariant: 'ElectionSafety', length: 9, slow: false },
  // §6.4: s1, deposed by s2 (whose no-op committed index 2), serves a read at index 1.
  { bug: 'read-without-quorum', invariant: 'LinearizableReads', length: 19, slow: false },
  // §9.6: the pre-candidate's first election timeout already raises its term.
  { bug: 'prevote-raises-term', invariant: 'NoTermRaisedAlone', length: 1, slow: false },
  // §9.6: leader s1 heeds s2's vote request of term 2 while it leads term 1.
  { bug: 'vote-during-lease', invariant: 'LeaseRespected', length: 7, slow: false },
  // §5.3: a duplicate of s1's first AppendEntries reaches s2 after the value was committed
  // on s1 and s2 alone, and cuts it from s2's log: one copy left of a committed entry.
  { bug: 'truncate-on-every-append', invariant: 'CommittedDurable', length: 14, slow: false },
  // §7: s3 committed index 2, then a snapshot at 1 sent before (reordered) takes it back.
  { bug: 'snapshot-rollback', invariant: 'CommitMonotonic', length: 20, slow: false },
  // s2 learns that the no-op of term 1 committed and never applies it.
  { bug: 'follower-skips-apply', invariant: 'AppliedUpToCommit', length: 10, slow: false },
  // §5.1: s2's vote of term 1 for s1 reaches s1 as a candidate of term 2, while s3 votes
  // for s2 in term 2: s1 and s2 both lead term 2.
  { bug: 'count-stale-vote', invariant: 'ElectionSafety', length: 9, slow: false },
] as const;


/**
 * The catalog's other invariants, each found alone by BFS at the bug's bounds (the search
 * above stops at the first one). Lengths pinned from the checker's own counterexamples.
 */
export const alsoBroken = [
  // Figure 8 again, one election later: a follower commits the value the new leader erased.
  { bug: 'commit-prev-term', invariant: 'StateMachineSafety', length: 34 },
] as const;
