// defineModel (issue 11.9): typed parameters, derived names and defaults, and models loaded
// from a module path outside spec/, through the installed binary in a child process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  boolean,
  choice,
  defaultLabel,
  defineModel,
  flagName,
  integer,
  type ModelSpec,
} from '../../checker/define-model.js';
import { loadModelModule } from '../../checker/load-model.js';
import { resolveParams } from '../../checker/params.js';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { WordReader, WordWriter } from '../../checker/words.js';
import { dieHardDefinition } from '../../models/calibration/diehard.js';
import { twoPhaseDefinition } from '../../models/calibration/twophase.js';

const seen: unknown[] = [];
const probe = defineModel({
  name: 'probe',
  description: 'records the typed parameters it is built with',
  params: {
    maxTerm: integer({ description: 'terms', default: 2, min: 1, max: 9 }),
    symmetry: boolean({ description: 'symmetry', default: false }),
    preset: choice({ description: 'preset', default: 'none', choices: ['none', 'tla'] }),
  },
  bugs: [
    { name: 'deep', description: 'needs more terms', breaks: ['Small'], bounds: { maxTerm: 5 } },
  ],
  create: (params): ModelSpec<{ n: number }, 'Inc'> => {
    seen.push(params);
    // Typed: these lines would not compile if the parameters were untyped.
    const terms: number = params.maxTerm;
    const preset: 'none' | 'tla' = params.preset;
    return {
      initialStates: () => [{ n: preset === 'tla' ? 1 : 0 }],
      actions: () => ['Inc'],
      next: (state) => (state.n < terms ? { n: state.n + 1 } : null),
      invariants: { Small: (state) => state.n < 4 },
    };
  },
});

test('parameters: declared once, flag names in kebab-case, typed values reach create', () => {
  assert.equal(
    probe.params.map((param) => [param.name, param.kind, param.default]),
    [
      ['max-term', 'integer', 2],
      ['symmetry', 'boolean', false],
      ['preset', 'choice', 'none'],
    ],
  );
  assert.is(flagName('maxRestartsPerServer'), 'max-restarts-per-server');
  const params = resolveParams(probe, 'deep', { preset: 'tla' });
  assert.equal(params, { 'max-term': 5, symmetry: false, preset: 'tla' });
  seen.length = 0;
  const model = probe.create(params, 'deep');
  assert.equal(seen, [{ maxTerm: 5, symmetry: false, preset: 'tla' }]);
  assert.equal(probe.bugs[0]!.bounds, { 'max-term': 5 });
  // 1..5 within maxTerm 5, and Small fails at 4.
  assert.is(breadthFirstSearch(model).invariant, 'Small');
});

test('names come from the model; label and codec have defaults', () => {
  assert.equal(probe.invariants, ['Small']);
  assert.equal(dieHardDefinition.invariants, ['TypeOK', 'NotSolved']);
  assert.equal(twoPhaseDefinition.invariants, ['TypeOK', 'TCConsistent']);
  assert.is(defaultLabel('FillBigJug'), 'FillBigJug');
  assert.is(defaultLabel({ type: 'Deliver', to: 2, from: 1 }), 'Deliver(1, 2)');
  assert.is(defaultLabel({ type: 'Tick' }), 'Tick');
  const model = dieHardDefinition.build(dieHardDefinition.defaults);
  const state = { small: 3, big: 4 };
  const out = new WordWriter();
  model.codec.encode(state, out);
  assert.equal(model.codec.decode(new WordReader(out.words, 0, out.length)), state);
  assert.is(model.label('SmallToBig'), 'SmallToBig');
});

test('TwoPhase through defineModel keeps its calibration counts (TLC: 288 and 8832)', () => {
  for (const [rms, states] of [[3, 288], [5, 8832]] as const) {
    const model = twoPhaseDefinition.create({ rms }, undefined);
    assert.is(breadthFirstSearch(model).distinctStates, states);
  }
});

const directory = mkdtempSync(join(tmpdir(), 'shardkv-model-'));
const modelFile = join(directory, 'my-model.ts');
// A model outside the repository: a plain declaration, no import of this package.
writeFileSync(
  modelFile,
  `interface Counter { readonly x: number }
export default {
  name: 'counter',
  description: 'counts to --limit; with --wedge it may fall back from 2 to 1 forever',
  params: {
    limit: { kind: 'integer', description: 'largest value', default: 4, min: 1, max: 50 },
    wedge: { kind: 'boolean', description: 'allow falling back', default: false },
  },
  create: (params: { limit: number; wedge: boolean }) => ({
    initialStates: (): Counter[] => [{ x: 0 }],
    actions: () => ['Inc', 'Back'],
    next: (state: Counter, action: string): Counter | null => {
      if (action === 'Inc') return state.x < params.limit ? { x: state.x + 1 } : null;
      return params.wedge && state.x === 2 ? { x: 1 } : null;
    },
    invariants: { InRange: (state: Counter) => state.x <= params.limit },
    // Counting ends at the limit: that state is not a deadlock.
    isTerminal: (state: Counter) => state.x === params.limit,
    properties: [
      {
        name: 'ReachesLimit',
        kind: 'eventually',
        holds: (state: Counter) => state.x === params.limit,
      },
    ],
    fairness: { weakLabelPrefixes: ['Inc', 'Back'] },
  }),
};
`,
);
const binary = join(process.cwd(), 'bin', 'shardkv.js');
// No coverage in the child (an empty value, as Node copies a missing one from this process):
// tsx compiles the model into a data: URL whose source map c8 cannot read.
const environment = { ...process.env, NODE_V8_COVERAGE: '' };
const run = (...argv: string[]) =>
  spawnSync(process.execPath, [binary, ...argv], {
    encoding: 'utf8',
    cwd: directory,
    env: environment,
  });
const summaryOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!);

test.after(() => rmSync(directory, { recursive: true, force: true }));

test('shardkv check ./my-model.ts loads and checks an external model on 1 and 2 workers', () => {
  for (const workers of ['1', '2']) {
    const check = run('check', './my-model.ts', '--limit', '6', '--workers', workers, '--json');
    assert.is(check.status, 0, check.stderr);
    const summary = summaryOf(check.stdout);
    assert.is(summary.model, 'counter');
    assert.is(summary.distinctStates, 7, 'a hand count: x = 0..6');
    assert.equal(summary.invariantsChecked, ['InRange']);
    assert.is(summary.liveness.result, 'ok');
  }
});

test('an external model with a wedge: lasso Inc, Inc, Back (loop 1), exit 1, replays', () => {
  const check = run('check', './my-model.ts', '--wedge', '--workers', '2', '--json');
  assert.is(check.status, 1, check.stderr);
  const summary = summaryOf(check.stdout);
  assert.is(summary.property, 'ReachesLimit');
  assert.is(summary.loop, 1);
  assert.is(summary.traceLength, 3);
  const replay = run('replay', summary.trace, '--json');
  assert.is(replay.status, 1, replay.stderr);
  assert.equal(summaryOf(replay.stdout).loop, 1);
  const text = run('check', './my-model.ts', '--wedge');
  assert.match(text.stdout, 'After step 3 the behaviour is back in state 1');
  assert.match(text.stdout, 'Step 3: Back');
});

test('a module that exports no model, or no module at all, is a usage error', async () => {
  const empty = join(directory, 'empty.mjs');
  writeFileSync(empty, 'export const answer = 42;\n');
  assert.is(run('check', './empty.mjs').status, 2);
  assert.match(run('check', './missing.ts').stderr, 'no model module at ./missing.ts');
  // In this process a plain .mjs module: tsx's compiled .ts would carry a source map that
  // c8 cannot read.
  const plainModule = join(directory, 'plain.mjs');
  writeFileSync(
    plainModule,
    `export const model = { name: 'plain', description: 'one state', create: () => ({
  initialStates: () => [0], actions: () => [], next: () => null, invariants: { Zero: (x) => x === 0 },
}) };\n`,
  );
  const loaded = await loadModelModule(plainModule);
  assert.is(loaded.name, 'plain');
  assert.is(loaded.modulePath, plainModule);
  assert.equal(loaded.invariants, ['Zero']);
  assert.is(breadthFirstSearch(loaded.create({}, undefined)).distinctStates, 1);
});

test.run();
