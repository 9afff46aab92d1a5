/**
 * The mutation list of `npm run mutants` (issue 10, item 7): each mutation is one text edit
 * of the real source (not a bug switch), found exactly once in its file, and the check that
 * must kill it: a model and the bounds at which BFS finds a violation. The catalog's bugs
 * that live in code come first, written as edits of the correct code; then mutations of our
 * own, each a slip a programmer could make.
 */

export interface Mutation {
  readonly name: string;
  /** What the edit breaks, in one line. */
  readonly description: string;
  /** A tracked file, relative to the repository root. */
  readonly file: string;
  /** Text that occurs exactly once in `file`. */
  readonly find: string;
  readonly replace: string;
  /** `shardkv check` arguments: the model and its bounds. */
  readonly check: readonly string[];
}

/** The bounds of the raft catalog entries (spec/raft/index.ts), as flags. */
const raftSmall = ['--max-restarts', '0', '--max-compactions', '0', '--max-reads', '0'];
const oneTermTwoMessages = ['raft', '--max-term', '1', '--max-log', '2', '--max-msgs', '2'];

export const mutations: readonly Mutation[] = [
  {
    name: 'commit-prev-term',
    description: 'a leader commits an entry of an earlier term by counting replicas (Figure 8)',
    file: 'spec/raft/replication.ts',
    find: "if (ownTerm || options.bugs?.['commit-prev-term'] === true) newCommit = index;",
    replace: 'newCommit = index;',
    check: ['raft', '--max-term', '4', '--max-log', '2', ...raftSmall, '--symmetry'],
  },
  {
    name: 'vote-ignores-log',
    description: 'a vote is granted without the candidate-log-up-to-date check (§5.4.1)',
    file: 'spec/raft/election.ts',
    find: 'isUpToDate(node, request.lastLogIndex, request.lastLogTerm);',
    replace: 'true;',
    check: ['raft', ...raftSmall],
  },
  {
    name: 'forget-vote-on-restart',
    description: 'a restarted node forgets the vote it saved',
    file: 'spec/raft/persistence.ts',
    find: 'votedFor: hardState.votedFor,',
    replace: 'votedFor: null,',
    check: ['raft', '--max-term', '1', '--max-compactions', '0', '--max-reads', '0'],
  },
  {
    name: 'truncate-on-every-append',
    description: 'a follower truncates after prevLogIndex even where the entries match',
    file: 'spec/raft/replication.ts',
    find: '    if (follower.log[position]?.term === entries[offset]!.term) continue;\n',
    replace: '',
    check: [...oneTermTwoMessages, ...raftSmall],
  },
  {
    name: 'snapshot-rollback',
    description: 'a follower installs a snapshot older than its commit index',
    file: 'spec/raft/compaction.ts',
    find: ': follower.commitIndex;',
    replace: ': snapshotIndex(follower);',
    check: [...oneTermTwoMessages, '--max-restarts', '0', '--max-reads', '0', '--symmetry'],
  },
  {
    name: 'follower-skips-apply',
    description: 'a follower advances its commit index without applying the entries',
    file: 'spec/raft/replication.ts',
    find: "effects.push({ type: 'apply', entries });",
    replace: '{}',
    check: ['raft', '--max-term', '1', ...raftSmall],
  },
  {
    name: 'quorum-off-by-one',
    description: 'a quorum is half the cluster, not a majority',
    file: 'spec/raft/node.ts',
    find: 'return Math.floor(clusterSize / 2) + 1;',
    replace: 'return Math.floor(clusterSize / 2);',
    check: ['raft', '--max-term', '1', ...raftSmall],
  },
  {
    name: 'vote-not-persisted',
    description: 'the hard state a node saves leaves its vote out',
    file: 'spec/raft/persistence.ts',
    find: "votedFor: options.bugs?.['forget-vote-on-restart'] === true ? null : node.votedFor,",
    replace: 'votedFor: null,',
    check: ['raft', '--max-term', '1', '--max-compactions', '0', '--max-reads', '0'],
  },
  {
    name: 'commit-not-persisted',
    description: 'a restarted node takes its commit index from the snapshot only',
    file: 'spec/raft/persistence.ts',
    find: 'const commitIndex = Math.max(base, hardState.commitIndex);',
    replace: 'const commitIndex = base;',
    check: ['raft', '--max-term', '1', '--max-compactions', '0', '--max-reads', '0'],
  },
  {
    name: 'stale-term-append-accepted',
    description: 'a follower accepts AppendEntries of an older term',
    file: 'spec/raft/replication.ts',
    find: 'if (request.term < node.currentTerm) {\n    return { node, effects: [reply(',
    replace: 'if (false) {\n    return { node, effects: [reply(',
    check: ['raft', ...raftSmall],
  },
  {
    name: 'commit-needs-more-than-last',
    description: 'a replica counts toward a commit only when it holds entries past the index',
    file: 'spec/raft/replication.ts',
    find: 'for (const match of node.matchIndex) if (match >= index) agree++;',
    replace: 'for (const match of node.matchIndex) if (match > index) agree++;',
    // Safe (less is committed) but stuck: only ValueCommitted sees it.
    check: ['raft', '--preset', 'liveness'],
  },
  {
    name: 'leader-counts-undurable-append',
    description: 'a new leader counts its no-op toward a quorum before its storage reports it',
    file: 'spec/raft/node.ts',
    find: 'matchIndex: Array<number>(node.clusterSize).fill(0),',
    replace: 'matchIndex: node.matchIndex.map((_, peer) => (peer === node.id ? next : 0)),',
    // The no-op commits on one follower's durable copy and the leader's written one.
    check: ['raft', ...raftSmall],
  },
  {
    name: 'vote-tally-next-term',
    description: "a candidate tallies only votes of the next term (the pre-vote's rule)",
    file: 'spec/raft/election.ts',
    find: 'const expectedTerm = preVote && !wrongTerm ? node.currentTerm + 1 : node.currentTerm;',
    replace: 'const expectedTerm = node.currentTerm + 1;',
    // Safe (nobody is ever elected) but stuck: only LeaderElected sees it.
    check: ['raft', '--preset', 'liveness'],
  },
  {
    name: 'vote-reply-echoes-term',
    description: "a vote reply carries the request's term instead of the voter's own",
    file: 'spec/raft/election.ts',
    find: 'term: grant && preVote ? request.term : node.currentTerm,',
    replace: 'term: request.term,',
    // Safe (a refusal is ignored whatever its term) but not raft.tla's reply: RefinesRaftTla.
    check: ['raft', '--refines', 'raft.tla', ...raftSmall],
  },
  {
    name: 'install-overwrites',
    description: 'a repeated Install with the same identity replaces what dst served since',
    file: 'spec/group/migration-steps.ts',
    find: "return { state: group, result: { type: 'receipt', receipt: record.receipt } };",
    replace:
      "return { state: withShard(group, identity.shard, next), result: { type: 'receipt', " +
      'receipt } };',
    // Only a duplicated Install repeats one (as the catalog's reinstall-overwrites needs).
    check: ['migration', '--max-duplicates', '1'],
  },
  {
    name: 'missing-dedup-check',
    description: 'a retried client request is applied again instead of answered from dedup',
    file: 'spec/group/client-requests.ts',
    find: 'if (previous !== undefined && previous.seq === request.seq) {',
    replace: 'if (false) {',
    check: ['migration'],
  },
  {
    name: 'delete-keeps-data',
    description: 'src deletes the shard (tombstone and all) but keeps its KV data and dedup table',
    file: 'spec/group/migration-steps.ts',
    find: '...absentShard({ kv: record.kv.empty(), dedup: record.dedup.empty() }),',
    replace: '...absentShard({ kv: record.kv, dedup: record.dedup }),',
    check: ['migration'],
  },
  {
    name: 'delete-without-tombstone',
    description:
      'src deletes the shard but keeps no tombstone: a repeated Delete is refused forever',
    file: 'spec/group/migration-steps.ts',
    find: '    tombstone: identity,\n',
    replace: '    tombstone: null,\n',
    // Safe but wedged: only the liveness pass (RecordedConfigsPublished) sees it.
    check: ['migration'],
  },
  {
    name: 'retry-takes-new-seq',
    description: 'a client retrying after ErrWrongGroup or silence numbers the retry anew, so ' +
      'a request that took effect before is applied again',
    file: 'spec/client/client-step.ts',
    find: "const waiting: Outstanding = { ...outstanding, stage: 'config', target: null, " +
      'tries: 0 };',
    replace: "const waiting: Outstanding = { ...outstanding, stage: 'config', target: null, " +
      'tries: 0, seq: state.nextSeq };',
    check: ['migration'],
  },
  {
    name: 'beliefs-kept-across-intents',
    description: "the driver rebuilds its beliefs only when it has none: the next intent " +
      "inherits the last one's",
    file: 'spec/migration/driver-step.ts',
    find: "const current = input.type !== 'start' && " +
      'driver.num === (controller.next?.num ?? null);',
    replace: "const current = input.type !== 'start' && driver.num !== null;",
    // The model feeds the driver `applied` after each plan and publish, as the runtime does.
    check: ['migration'],
  },
  {
    name: 'recovery-takes-frozen-for-done',
    description:
      'a recovering driver takes a frozen source for a finished move, before the install',
    file: 'spec/migration/recovery.ts',
    find: "if (identity.dst === unassignedGid && frozenHere) return { step: 'done' };",
    replace: "if (frozenHere) return { step: 'done' };",
    check: ['migration'],
  },
];
