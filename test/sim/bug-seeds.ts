// The first failing seed of `shardkv simulate --seeds 1..300 --bug NAME` for each catalog
// bug the simulator finds (traces/sim/README.md), with the invariant and a pattern of its
// detail. test/sim/bugs.test.ts reruns each; the catalog matrix (docs/catalog.md) claims
// them. Searched again after the swarm draws, disk damage, the clerk's back-off and the
// progress checks, each of which gives most seeds other runs; the clerk's open attempts (a
// late reply answers, issue 27) moved accept-stale-epoch, reinstall-overwrites and
// read-without-quorum's key; the simulator's servers running flow control (issue 21 item 3)
// moved most of the others; a follower's queued appends sharing its sync (raft-loop.ts, as in
// real nodes) moved most again.
export interface SimulatorBugSeed {
  readonly bug: string;
  readonly seed: number;
  readonly invariant: string;
  readonly detail: RegExp;
}

export const simulatorBugSeeds: readonly SimulatorBugSeed[] = [
  { bug: 'skip-freeze', seed: 1, invariant: 'AtMostOneServer', detail: /is served by gid/ },
  {
    // A write applied twice after its shard moved: key "c" holds <c5.33> twice.
    bug: 'dedup-not-migrated', seed: 13, invariant: 'ExactlyOnce',
    detail: /key "c" holds the write <c5\.33> twice/,
  },
  {
    bug: 'accept-stale-epoch', seed: 233, invariant: 'StaleRejected',
    detail: /went back for shard \d+ from epoch \d+ .* to epoch \d+/,
  },
  {
    // Shards deleted at src before dst installed: the new owner holds a shard absent. (Seed
    // 6, Linearizability, until queued appends shared a sync; seed 1, PublishedServed, until
    // leader churn; seed 7, Liveness, until flow control.)
    bug: 'delete-before-receipt', seed: 3, invariant: 'PublishedServed',
    detail: /shard \d+ does not move, but its owner gid \d+ in configuration \d+ holds it absent/,
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
    bug: 'unfreeze-on-recovery', seed: 2, invariant: 'AtMostOneServer',
    detail: /is served by gid/,
  },
  {
    // A repeated install rolls dst back over acknowledged writes (NoLostWrite at seed 30
    // until queued appends shared a sync).
    bug: 'reinstall-overwrites', seed: 52, invariant: 'Linearizability',
    detail: /not-linearizable on key "d"/,
  },
  // Issue 24 item 3: the administrator expires sessions in a quarter of the seeds (swarm.ts);
  // with the bug, an expired client's late duplicate is applied again: <c0.1> twice (NoLostWrite
  // at seed 16 until queued appends shared a sync).
  {
    bug: 'expiry-forgets-session', seed: 47, invariant: 'ExactlyOnce',
    detail: /key "e" holds the write <c0\.1> twice/,
  },
  // Leader churn (swarm.ts): a controller votes in term 5, restarts without its vote and
  // votes again (seed 11, in group 100, before flow control).
  {
    bug: 'forget-vote-on-restart', seed: 1, invariant: 'ElectionSafety',
    detail: /controller: ctl-1 and ctl-2 both became leader in term 5/,
  },
  // Figure 8 under leader churn: in the controller group an entry of term 14 committed at
  // index 67 is overwritten by a later leader's entry of term 16 (seed 823, in g101, before
  // flow control).
  {
    bug: 'commit-prev-term', seed: 222, invariant: 'StateMachineSafety',
    detail: /ctl-0 has committed index 67 holding an entry of term 16, where an entry of term 14/,
  },
  // A vote of an older term counted under leader churn (seeds 1..1000 passed before it): two
  // leaders of term 4 in g102 (seed 210, StateMachineSafety, until queued appends shared a
  // sync; ElectionSafety at seed 293 before flow control).
  {
    bug: 'count-stale-vote', seed: 31, invariant: 'ElectionSafety',
    detail: /g102: g102-2 and g102-0 both became leader in term 4/,
  },
  {
    bug: 'frozen-source-serves-reads', seed: 13, invariant: 'Linearizability',
    detail: /not-linearizable on key "c"/,
  },
  // Found since the catalog's matrix asked (issue 24 item 8). A node shell that stops at its
  // own assertion is the finding where the runtime refuses what the bug does (ServerError).
  {
    bug: 'follower-skips-apply', seed: 1, invariant: 'ServerError',
    detail: /AssertionError: applying \d+, expected \d+/,
  },
  {
    // A follower that cut its committed entry takes another there (ServerError, a restart
    // beyond its cut log refused by the WAL, before flow control).
    bug: 'truncate-on-every-append', seed: 1, invariant: 'StateMachineSafety',
    detail: /g102-1 has committed index 1 holding an entry of term 2, where an entry of term 1/,
  },
  {
    bug: 'snapshot-rollback', seed: 6, invariant: 'ServerError',
    detail: /AssertionError: a snapshot never goes back/,
  },
  {
    // A deposed leader answers a read from its own state: a client reads an older value.
    bug: 'read-without-quorum', seed: 184, invariant: 'Linearizability',
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
  // One dedup record per client for all shards: once the shard holding it moves, a request
  // is answered from the wrong record: g100-0 answers client-7's append ok where the spec
  // does not. Seed 49 (Linearizability) until queued appends shared a sync, 190 until issue
  // 21's small results, 366 until leader churn, 428 (ExactlyOnce) until flow control.
  {
    bug: 'one-seq-across-shards', seed: 214, invariant: 'ReplyMatchesSpec',
    detail: /g100-0 answered client-7's append "c" \(client 7, seq 53\) with \{"type":"ok"\}/,
  },
];
