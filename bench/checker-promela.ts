/**
 * TwoPhase.tla in Promela, for SPIN (checker-spin.ts): one process whose loop offers every
 * action of twophase.ts as a guarded d_step, each checking TCConsistent after its update, so
 * that SPIN explores exactly our state space (1,745,408 states and 18,507,778 transitions for
 * 8 resource managers) and checks the same invariant on every state it reaches.
 */
export function twoPhasePromela(resourceManagers: number): string {
  const rms = [...Array(resourceManagers).keys()];
  const allPrepared = rms.map((rm) => `tmPrepared[${rm}]`).join(' && ');
  const someAborted = rms.map((rm) => `rmState[${rm}] == 3`).join(' || ');
  const someCommitted = rms.map((rm) => `rmState[${rm}] == 2`).join(' || ');
  const options = [
    `tmState == 0 && ${allPrepared} -> tmState = 1; msgCommit = 1`,
    'tmState == 0 -> tmState = 2; msgAbort = 1',
    ...rms.flatMap((rm) => [
      `tmState == 0 && msgPrepared[${rm}] -> tmPrepared[${rm}] = 1`,
      `rmState[${rm}] == 0 -> rmState[${rm}] = 1; msgPrepared[${rm}] = 1`,
      `rmState[${rm}] == 0 -> rmState[${rm}] = 3`,
      `msgCommit -> rmState[${rm}] = 2`,
      `msgAbort -> rmState[${rm}] = 3`,
    ]),
  ];
  return [
    `#define N ${resourceManagers}`,
    '/* rmState: 0 working, 1 prepared, 2 committed, 3 aborted; tmState: 0 init, 1, 2 */',
    'byte rmState[N];',
    'byte tmState;',
    'bool tmPrepared[N];',
    'bool msgPrepared[N];',
    'bool msgCommit;',
    'bool msgAbort;',
    `#define CONSISTENT (!((${someAborted}) && (${someCommitted})))`,
    'active proctype twophase() {',
    'end:',
    '  do',
    ...options.map((option) => `  :: d_step { ${option}; assert(CONSISTENT) }`),
    '  od',
    '}',
    '',
  ].join('\n');
}
