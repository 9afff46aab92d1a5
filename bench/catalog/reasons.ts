/**
 * Why a tool cannot see a catalogued bug: the stated reasons of the bug x tool matrix
 * (docs/catalog.md). The generator skips a tool where a reason is stated here (its cell is
 * the reason), and test/catalog/matrix.test.ts checks that no reason stands beside a claimed
 * finding. A cell with neither a finding nor a reason is printed as "not found", never
 * left empty.
 */

export type Tool = 'check' | 'simulate' | 'replay' | 'mbt' | 'conform';

const controllerOnly =
  'a non-minimal rebalance is correct behaviour (only more moves): no runtime check asks for ' +
  'the fewest moves (replay --runtime measures them on the controller model\'s trace)';
const needsContext =
  'the bug shows only behind its context (a driver that asks a source after its delete), ' +
  'and the runtime runs one switch at a time';
const noReuse = 'the runtime clerk never reuses a seq for another request (spec/client numbers ' +
  'each request once), so no runtime run meets the bug';

const livenessPreset = 'a liveness lasso, checked with --preset liveness-9.6: mbt refuses ' +
  'the liveness presets (a walk evaluates invariants after each step, it has no lasso)';

/** Per tool, per bug: why that tool cannot see that bug. */
export const cannotSee: Readonly<Record<Tool, Readonly<Record<string, string>>>> = {
  check: {},
  simulate: {
    'non-minimal-rebalance': controllerOnly,
    'non-minimal-by-gid-order': controllerOnly,
    'dedup-ignores-digest': noReuse,
    'install-accepts-different-image': needsContext,
    'migrate-returns-empty-after-gc': needsContext,
    'prevote-raises-term': 'the simulator does not check NoTermRaisedAlone (a term raised by a ' +
      'lone pre-candidate is a harmless disruption that no client sees)',
    'vote-during-lease': 'the simulator does not check LeaseRespected (a deposed healthy ' +
      'leader costs an election, which no client sees)',
    'leader-never-steps-down': 'a cut-off leader leads on only while cut off, committing ' +
      'nothing: once the nemesis heals the network the first message of a newer term deposes ' +
      'it (§5.1), and the progress checks run after the repair (seeds 1..1000 pass)',
  },
  replay: {
    'snapshot-rollback': 'the runtime shell stops the rollback with an assertion before the ' +
      'invariant can fail (test/replay-runtime divergence test)',
    'recovery-needs-source-after-delete': 'a liveness lasso: replay --runtime replays the ' +
      'prefix but cannot show that the loop runs forever',
    'expiry-forgets-session': 'replay --runtime does not replay ExpireSessions (the runtime ' +
      'has no such model action; the simulator issues expiry through the administrator)',
  },
  mbt: {
    'commit-prev-term': 'a walk does not reach it: its shortest schedule is 29 steps among ' +
      '951,312 states (with symmetry), four elections in which an old term\'s entry reaches ' +
      'one follower before the new leader\'s no-op; 1,000 plain and 3,000 guided walks of ' +
      'depth 40 pass (seed 1), and --paths would drive millions of schedules (replay ' +
      '--runtime reproduces the kept trace in the same nodes)',
    'read-without-quorum': 'a walk does not reach it: its shortest schedule is 19 steps among ' +
      '264,375 states, a leader deposed without hearing of the new term while its successor ' +
      'commits, then the one read at it; 1,000 plain and 3,000 guided walks of depth 40 pass ' +
      '(seed 1; in the spec alone also 2,000 guided walks with --max-reads 3), and --paths ' +
      'would drive 264,375 schedules (replay --runtime reproduces the kept trace)',
    'prevote-response-term': livenessPreset,
    'leader-never-steps-down': livenessPreset,
    'recovery-needs-source-after-delete': 'a liveness lasso: a walk evaluates invariants after ' +
      'each step and cannot show that the loop runs forever',
    'expiry-forgets-session': 'mbt does not drive ExpireSessions (no runtime component sends ' +
      'expire-sessions; the simulator issues expiry through the administrator)',
  },
  conform: {
    'non-minimal-rebalance': controllerOnly,
    'non-minimal-by-gid-order': controllerOnly,
    'dedup-ignores-digest': noReuse,
    'install-accepts-different-image': needsContext,
    'migrate-returns-empty-after-gc': needsContext,
    'prevote-raises-term': 'no simulator seed shows it (above), so there is no traced ' +
      'failing seed to conform',
    'vote-during-lease': 'no simulator seed shows it (above), so there is no traced failing ' +
      'seed to conform',
    'leader-never-steps-down': 'no simulator seed shows it (above), so there is no traced ' +
      'failing seed to conform',
  },
};

export function reasonOf(tool: Tool, bug: string): string | undefined {
  return cannotSee[tool][bug];
}
