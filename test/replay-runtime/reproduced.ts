// Shared by reproduce.test.ts (which replays each) and the catalog matrix's test.
/** The catalog bugs whose kept counterexample the runtime reproduces (DESIGN §3). */
export const reproduced: readonly (readonly [string, string])[] = [
  ['raft', 'commit-prev-term'],
  ['raft', 'vote-ignores-log'],
  ['raft', 'forget-vote-on-restart'],
  ['raft', 'follower-skips-apply'],
  ['raft', 'truncate-on-every-append'],
  ['raft', 'count-stale-vote'],
  // ReadIndex is driven: the runtime's reads are measured as the model's.
  ['raft', 'read-without-quorum'],
  // PreVote and CheckQuorum run as the trace's bounds set them; the adapter sets §9.6's flags
  // from the real node's step.
  ['raft', 'prevote-raises-term'],
  ['raft', 'vote-during-lease'],
  ['migration', 'skip-freeze'],
  ['migration', 'dedup-not-migrated'],
  ['migration', 'reinstall-overwrites'],
  ['migration', 'delete-before-receipt'],
  ['migration', 'unfreeze-on-recovery'],
  ['migration', 'dedup-ignores-digest'],
  ['migration', 'one-seq-across-shards'],
  ['migration', 'frozen-source-serves-reads'],
  ['migration', 'accept-stale-epoch'],
  ['migration', 'install-accepts-different-image'],
  ['migration', 'migrate-returns-empty-after-gc'],
  // The controller group's real servers: the rebalance measured on what applied.
  ['controller', 'non-minimal-rebalance'],
  ['controller', 'non-minimal-by-gid-order'],
  ['controller', 'query-answers-older'],
];

