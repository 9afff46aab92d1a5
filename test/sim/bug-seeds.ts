// The first failing seed of `shardkv simulate --seeds 1..300 --bug NAME` for each catalog
// bug the simulator finds (traces/sim/README.md), with the invariant and a pattern of its
// detail. test/sim/bugs.test.ts reruns each; the catalog matrix (docs/catalog.md) claims
// them. Searched again after the swarm draws, disk damage, the clerk's back-off and the
// progress checks, each of which gives most seeds other runs; the clerk's open attempts (a
// late reply answers, issue 27) moved accept-stale-epoch, reinstall-overwrites and
// read-without-quorum's key.
export interface SimulatorBugSeed {
  readonly bug: string;
  readonly seed: number;
  readonly invariant: string;
  readonly detail: RegExp;
}

export const simulatorBugSeeds: readonly SimulatorBugSeed[] = [
  { bug: 'skip-freeze', seed: 1, invariant: 'AtMostOneServer', detail: /is served by gid/ },
  {
    // A write applied twice after its shard moved.
    bug: 'dedup-not-migrated', seed: 7, invariant: 'ExactlyOnce',
    detail: /key "c" holds the write <c5\.3> twice/,
  },
  {
    bug: 'accept-stale-epoch', seed: 52, invariant: 'StaleRejected',
    detail: /went back for shard \d+ from epoch \d+ .* to epoch \d+/,
  },
  {
    // Shards deleted at src before dst installed: the migration can never finish. (Seed 1,
    // PublishedServed, until leader churn gave seed 1 other runs.)
    bug: 'delete-before-receipt', seed: 7, invariant: 'Liveness',
    detail: /configuration \d+ is recorded but only \d+ is published .*src absent, dst absent/,
  },
  {
    bug: 'vote-ignores-log', seed: 1, invariant: 'StateMachineSafety',
    detail: /has committed index \d+ holding an entry of term \d+/,
  },
  // Beyond issue 12's five: the other catalog bugs the simulator finds.
  {
    bug: 'skip-config', seed: 1, invariant: 'ConfigsInOrder',
    detail: /plans configuration \d+ while configuration 0 is current/,
  },
  {
    bug: 'unfreeze-on-recovery', seed: 4, invariant: 'AtMostOneServer',
    detail: /is served by gid/,
  },
  {
    bug: 'reinstall-overwrites', seed: 20, invariant: 'Linearizability',
    detail: /not-linearizable on key "c"/,
  },
  // Issue 24 item 3: the administrator expires sessions in a quarter of the seeds (swarm.ts);
  // with the bug, an expired client's late duplicate is applied again.
  {
    bug: 'expiry-forgets-session', seed: 101, invariant: 'Linearizability',
    detail: /not-linearizable on key "d"/,
  },
  // Leader churn (swarm.ts): g100-2 votes for g100-1 in term 2, crashes as a recent voter,
  // restarts without its vote and votes for g100-0 in term 2 too.
  {
    bug: 'forget-vote-on-restart', seed: 11, invariant: 'ElectionSafety',
    detail: /g100-1 and g100-0 both became leader in term 2/,
  },
  // Figure 8 under leader churn: a later leader of g101 commits the entry of term 6 at index
  // 2 by counting replicas (one follower acknowledged it before the no-op); a server holding
  // an entry of term 7 there is elected afterwards and overwrites it.
  {
    bug: 'commit-prev-term', seed: 823, invariant: 'StateMachineSafety',
    detail: /g101-\d has committed index 2 holding an entry of term 7, where an entry of term 6/,
  },
  // A vote of an older term counted under leader churn (seeds 1..1000 passed before it).
  {
    bug: 'count-stale-vote', seed: 293, invariant: 'ElectionSafety',
    detail: /controller: ctl-1 and ctl-2 both became leader in term 7/,
  },
  {
    bug: 'frozen-source-serves-reads', seed: 182, invariant: 'Linearizability',
    detail: /not-linearizable on key "d"/,
  },
  // Found since the catalog's matrix asked (issue 24 item 8). A node shell that stops at its
  // own assertion is the finding where the runtime refuses what the bug does (ServerError).
  {
    bug: 'follower-skips-apply', seed: 1, invariant: 'ServerError',
    detail: /AssertionError: applying \d+, expected \d+/,
  },
  {
    bug: 'truncate-on-every-append', seed: 1, invariant: 'ServerError',
    // A restart whose saved commit index is beyond its cut log: the WAL refuses it.
    detail: /WalCorruptionError: .*saved commit \d+ beyond the log/,
  },
  {
    bug: 'snapshot-rollback', seed: 17, invariant: 'ServerError',
    detail: /AssertionError: a snapshot never goes back/,
  },
  {
    // A deposed leader answers a read from its own state: a client reads an older value.
    bug: 'read-without-quorum', seed: 145, invariant: 'Linearizability',
    detail: /not-linearizable on key "a"/,
  },
  {
    bug: 'query-answers-older', seed: 1, invariant: 'AnswersMatchSpec',
    detail: /answered admin's query \d+ with configuration \d+, but configuration \d+ was/,
  },
  {
    bug: 'prevote-response-term', seed: 2, invariant: 'LeaderAfterHeal',
    detail: /the controller group has no leader 6000 ms after the faults were repaired/,
  },
  {
    bug: 'recovery-needs-source-after-delete', seed: 2, invariant: 'Liveness',
    detail: /configuration \d+ is recorded but only \d+ is published/,
  },
  // One dedup record per client for all shards: once the shard holding it moves, a late
  // duplicate of an earlier request to another shard is applied again. Seed 190 until issue
  // 21's small results, 366 until leader churn gave seed 366 other runs; 428 now.
  {
    bug: 'one-seq-across-shards', seed: 428, invariant: 'ExactlyOnce',
    detail: /key "a" holds the write <c8\.6> twice/,
  },
];
