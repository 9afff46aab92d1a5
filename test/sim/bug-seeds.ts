// The first failing seed of `shardkv simulate --seeds 1..1000 --bug NAME` for each catalog
// bug the simulator finds (traces/sim/README.md), with the invariant and a pattern of its
// detail. test/sim/bugs.test.ts reruns each; the catalog matrix (docs/catalog.md) claims
// them. Searched again after issue 24's swarm draws (verify/simulate/swarm.ts), which give
// most seeds other runs.
export interface SimulatorBugSeed {
  readonly bug: string;
  readonly seed: number;
  readonly invariant: string;
  readonly detail: RegExp;
}

export const simulatorBugSeeds: readonly SimulatorBugSeed[] = [
  { bug: 'skip-freeze', seed: 1, invariant: 'AtMostOneServer', detail: /is served by gid/ },
  {
    // A write applied twice after its shard moved: lincheck sees it before the token check.
    bug: 'dedup-not-migrated', seed: 15, invariant: 'Linearizability',
    detail: /not-linearizable on key "b"/,
  },
  {
    bug: 'accept-stale-epoch', seed: 48, invariant: 'StaleRejected',
    detail: /went back for shard \d+ from epoch \d+ .* to epoch \d+/,
  },
  {
    bug: 'delete-before-receipt', seed: 5, invariant: 'Liveness',
    detail: /configuration \d+ is recorded but only \d+ is published/,
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
    bug: 'unfreeze-on-recovery', seed: 7, invariant: 'AtMostOneServer',
    detail: /is served by gid/,
  },
  {
    bug: 'reinstall-overwrites', seed: 13, invariant: 'Linearizability',
    detail: /not-linearizable on key "c"/,
  },
  // Issue 24 item 3: the administrator expires sessions in a quarter of the seeds (swarm.ts);
  // with the bug, an expired client's late duplicate is applied again.
  {
    bug: 'expiry-forgets-session', seed: 101, invariant: 'ExactlyOnce',
    detail: /key "f" holds the write <c0\.44> twice/,
  },
];

