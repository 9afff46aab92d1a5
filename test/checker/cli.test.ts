// The CLI contract for check / replay / models / bugs: exit codes, --json, one-line errors.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { table } from '../../cli/check-all.js';
import { describeBounds, writeViolation } from '../../cli/check.js';
import { resolveParams } from '../../checker/params.js';
import { findModel } from '../../models/registry.js';
import { runChild, runCli, spawnChild } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';

const scratch = scratchDirectory('shardkv-cli-');
const aFile = join(scratch, 'a-file');
writeFileSync(aFile, 'not a directory');

// Independent: 8832 (5 RMs), 1568 (4 RMs) and DieHard's 16 are TLC's counts.
test('check twophase --rms 5 --json: ok with 8832 distinct states', async () => {
  const run = await runCli('check', 'twophase', '--rms', '5', '--json', '--quiet');
  assert.is(run.code, 0);
  const summary = run.json();
  assert.is(summary['result'], 'ok');
  assert.is(summary['distinctStates'], 8832);
  assert.equal(summary['params'], { rms: 5 });
  assert.equal(summary['invariantsChecked'], ['TypeOK', 'TCConsistent']);
});

test('check diehard --json: a 6-step violation whose trace replays with exit 1', async () => {
  const out = join(scratch, 'diehard.trace.json');
  const run = await runCli('check', 'diehard', '--json', '--out', out);
  assert.is(run.code, 1);
  const summary = run.json();
  assert.is(summary['ok'], false);
  assert.is(summary['result'], 'violation');
  assert.is(summary['invariant'], 'NotSolved');
  assert.is(summary['traceLength'], 6);
  assert.is(summary['trace'], out);
  const itf = JSON.parse(readFileSync(join(scratch, 'diehard.itf.json'), 'utf8'));
  assert.equal(itf.vars, ['small', 'big']);
  assert.is(itf.states.length, 7);
  assert.equal(itf.states[6].big, { '#bigint': '4' });
  const replay = await runCli('replay', out, '--json');
  assert.is(replay.code, 1);
  assert.is(replay.json()['invariant'], 'NotSolved');
  assert.is(replay.json()['step'], 6);
});

test('check prints the numbered trace with the variables each step changed', async () => {
  const run = await runCli(
    'check',
    'diehard',
    '--out',
    join(scratch, 'human.trace.json'),
    '--quiet',
  );
  assert.is(run.code, 1);
  assert.match(run.stdout, 'Invariant NotSolved is violated after 6 steps');
  assert.match(run.stdout, /Step 1: FillBigJug\n {4}big: 0 -> 5\n/);
  assert.match(run.stdout, /Step 6: BigToSmall\n {4}small: 2 -> 3\n {4}big: 5 -> 4\n/);
});

test('replay: a shortened trace is valid and clean (exit 0)', async () => {
  const file = join(scratch, 'diehard.trace.json');
  const trace = JSON.parse(readFileSync(file, 'utf8'));
  trace.steps.pop();
  trace.states.pop();
  const shortened = join(scratch, 'short.trace.json');
  writeFileSync(shortened, JSON.stringify(trace));
  const replay = await runCli('replay', shortened, '--json');
  assert.is(replay.code, 0);
  assert.equal(replay.json(), { ok: true, result: 'ok', steps: 5 });
});

test('replay: a tampered action or state is invalid input (exit 2, step named)', async () => {
  const trace = JSON.parse(readFileSync(join(scratch, 'diehard.trace.json'), 'utf8'));
  const badAction = structuredClone(trace);
  badAction.steps[2].action = 'PourEverywhere';
  writeFileSync(join(scratch, 'bad-action.json'), JSON.stringify(badAction));
  const first = await runCli('replay', join(scratch, 'bad-action.json'));
  assert.is(first.code, 2);
  assert.match(first.stderr, 'step 3: action "PourEverywhere" is not an action of this state');
  const badIndex = structuredClone(trace);
  badIndex.steps[0].actionIndex = 4;
  writeFileSync(join(scratch, 'bad-index.json'), JSON.stringify(badIndex));
  const third = await runCli('replay', join(scratch, 'bad-index.json'));
  assert.is(third.code, 2);
  assert.match(third.stderr, 'step 1: actionIndex 4 does not match the action (index 1)');
  const badLabel = structuredClone(trace);
  badLabel.steps[1].label = 'FillSmallJug';
  writeFileSync(join(scratch, 'bad-label.json'), JSON.stringify(badLabel));
  const fourth = await runCli('replay', join(scratch, 'bad-label.json'));
  assert.is(fourth.code, 2);
  assert.match(
    fourth.stderr,
    'step 2: label "FillSmallJug" does not match the action (BigToSmall)',
  );
  const badState = structuredClone(trace);
  badState.states[4].big = { '#bigint': '1' };
  writeFileSync(join(scratch, 'bad-state.json'), JSON.stringify(badState));
  const second = await runCli('replay', join(scratch, 'bad-state.json'));
  assert.is(second.code, 2);
  assert.match(second.stderr, 'step 4: big: recorded 1, spec 0');
});

test('replay checks the whole file: version, step numbers, changed values (exit 2)', async () => {
  const trace = JSON.parse(readFileSync(join(scratch, 'diehard.trace.json'), 'utf8'));
  const cases: [(copy: any) => void, string][] = [
    [(copy) => (copy.version = 2),
      'trace version 2 is not supported (this replay reads version 1)'],
    [(copy) => (copy.steps[2].step = 7), 'step 3: "step" is 7, expected 3'],
    [(copy) => (copy.steps[1].changed.big = { '#bigint': '3' }),
      'step 2: changed.big: recorded 3, spec 2'],
    [(copy) => delete copy.steps[0].changed.big, 'step 1: changed.big: recorded (absent), spec 5'],
    [(copy) => copy.states.pop(), '6 states for 6 steps'],
  ];
  for (const [edit, message] of cases) {
    const copy = structuredClone(trace);
    edit(copy);
    const file = join(scratch, 'edited.trace.json');
    writeFileSync(file, JSON.stringify(copy));
    const run = runChild('replay', file, '--json');
    assert.is(run.code, 2, message);
    assert.match(run.stderr, message);
    assert.is(run.stderr.split('\n').length, 1, run.stderr);
    assert.is(run.json()['ok'], false);
    assert.match(String(run.json()['error']), message);
  }
});

test('replay names the field a recorded raft state gets wrong (servers.s1.currentTerm)', () => {
  const trace = JSON.parse(readFileSync('traces/raft/forget-vote-on-restart.trace.json', 'utf8'));
  trace.states[1].servers.s1.currentTerm = { '#bigint': '2' };
  const file = join(scratch, 'raft-edited.trace.json');
  writeFileSync(file, JSON.stringify(trace));
  const run = runChild('replay', file);
  assert.is(run.code, 2);
  assert.is(run.stderr, `${file}: step 1: servers.s1.currentTerm: recorded 2, spec 1`);
});

test('unbounded input: replay and lincheck of /dev/urandom fail at once with one line', () => {
  const replay = runChild('replay', '/dev/urandom', '--json');
  assert.is(replay.code, 2);
  assert.is(replay.stderr, 'shardkv replay: /dev/urandom is larger than the input limit of 64 MiB');
  assert.is(replay.json()['ok'], false);
  const lincheck = runChild('lincheck', '/dev/urandom');
  assert.is(lincheck.code, 2);
  assert.is(lincheck.stderr,
    'shardkv lincheck: /dev/urandom is larger than the input limit of 256 MiB');
  assert.is(lincheck.stdout, '');
});

test('--json prints one object on errors too; --version prints package.json\'s', () => {
  const unknown = runChild('check', 'nosuch', '--json');
  assert.is(unknown.code, 2);
  assert.equal(unknown.json(), { ok: false, error: unknown.stderr });
  assert.is(unknown.stdout.split('\n').length, 1);
  const truncated = join(scratch, 'truncated.trace.json');
  writeFileSync(truncated, readFileSync(join(scratch, 'diehard.trace.json'), 'utf8').slice(0, 300));
  const replay = runChild('replay', truncated, '--json');
  assert.is(replay.code, 2);
  assert.match(String(replay.json()['error']), 'not a JSON trace');
  const version = runChild('--version');
  assert.is(version.code, 0);
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  assert.is(version.stdout, `shardkv ${manifest.version}`);
});

test('replay: missing, non-JSON and non-trace files exit 2 with one line', async () => {
  writeFileSync(join(scratch, 'garbage.json'), '{not json');
  writeFileSync(join(scratch, 'other.json'), '{"format":"something"}');
  for (const file of [
    '/nonexistent/trace.json',
    join(scratch, 'garbage.json'),
    join(scratch, 'other.json'),
  ]) {
    const run = await runCli('replay', file);
    assert.is(run.code, 2, file);
    assert.is(run.stderr.split('\n').length, 1, run.stderr);
  }
});

test('usage errors exit 2 with a one-line reason', async () => {
  const cases: [string[], string][] = [
    [['check', 'nosuchmodel'], "unknown model 'nosuchmodel'"],
    [['check', 'twophase', '--bogus', '1'], 'unknown flag --bogus'],
    [['check', 'twophase', '--rms', 'three'], "--rms expects an integer, got 'three'"],
    [['check', 'twophase', '--rms', '0'], '--rms must be between 1 and 15'],
    [['check', 'twophase', '--strategy', 'sideways'], '--strategy must be one of bfs, dfs, random'],
    [['check', 'twophase', '--workers'], '--workers needs a value'],
    [['check', 'twophase', '--bug', 'nope'], "model twophase has no bug 'nope'"],
    [['check'], 'check needs a MODEL'],
    [['replay'], 'replay needs a trace FILE'],
    [['frobnicate'], "unknown command 'frobnicate'"],
    // Refused before the "Checking ..." header: stderr holds the reason alone.
    [['check', 'raft', '--preset', 'raft.tla', '--max-compactions', '0'],
      '--preset raft.tla has no --max-compactions bound'],
    [['check', 'twophase', '--strategy', 'dfs', '--workers', '2'],
      '--workers applies to --strategy bfs only (dfs runs on one thread)'],
    [['check', 'twophase', '--seed', '3'], '--seed applies to --strategy random only'],
    [['check', 'twophase', '--strategy', 'dfs', '--walks', '3'],
      '--walks applies to --strategy random only'],
    [['check', 'diehard', '--continue', '--workers', '2'], '--continue runs on one thread'],
    [['check', 'diehard', '--quiet', '--out', join(aFile, 'sub', 't.json')], 'cannot write'],
    [['models', 'extra'], "unexpected argument 'extra'"],
  ];
  for (const [argv, message] of cases) {
    const run = await runCli(...argv);
    assert.is(run.code, 2, argv.join(' '));
    assert.match(run.stderr, message);
    assert.is(run.stderr.split('\n').length, 1, run.stderr);
  }
});

test('limits make the result incomplete, clearly said', async () => {
  const run = await runCli(
    'check',
    'twophase',
    '--rms',
    '5',
    '--max-states',
    '100',
    '--json',
    '--quiet',
  );
  assert.is(run.code, 0);
  assert.is(run.json()['result'], 'incomplete');
  assert.is(run.json()['stoppedBy'], 'max-states');
  assert.is(run.json()['distinctStates'], 100, 'the --max-states limit given');
  assert.is(run.json()['exhaustive'], false);
  const human = await runCli('check', 'twophase', '--rms', '5', '--max-states', '100', '--quiet');
  assert.match(human.stdout, 'INCOMPLETE: stopped by max-states');
});

test('--continue lists every violated invariant with its own trace', async () => {
  const out = join(scratch, 'continued.trace.json');
  const run = await runCli('check', 'diehard', '--continue', '--json', '--quiet', '--out', out);
  assert.is(run.code, 1);
  const summary = run.json();
  assert.equal(summary['violations'], [{ invariant: 'NotSolved', trace: out, traceLength: 6 }]);
  // Every state was explored for TypeOK, which holds: the run is exhaustive.
  assert.is(summary['exhaustive'], true);
  assert.is(summary['distinctStates'], 16);
});

for (const workers of ['1', '2']) {
  const title = `Ctrl-C (SIGINT to a real process) prints the summary so far, exit 130: ` +
    `${workers} worker(s)`;
  test(title, async () => {
    // raft at its default bounds runs for seconds; the signal goes once the header is printed,
    // which the CLI does only after it catches SIGINT. With two workers both stop and the
    // summary sums their counts (not a stale progress line: none is printed in this time).
    const child = spawnChild('check', 'raft', '--json', '--workers', workers);
    let stderr = '';
    let stdout = '';
    let signalled = false; // once: a second Ctrl-C quits without a summary
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      if (!signalled && stderr.includes('Checking raft')) signalled = child.kill('SIGINT');
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.is(code, 130, stderr);
    assert.match(stderr, 'interrupted: stopping the search and printing the summary so far');
    const summary = JSON.parse(stdout.trim().split('\n').at(-1)!);
    assert.equal([summary.result, summary.stoppedBy, summary.exhaustive],
      ['incomplete', 'interrupt', false]);
    assert.ok(summary.distinctStates < 1_182_516, `${summary.distinctStates} distinct states`);
    // The signal comes right after the header: with two workers the initial state may still
    // be on its way to the worker that owns its fingerprint (it did for raft's initial state
    // once the model's disk kept durable apart, issue 20), so count the generated ones.
    assert.ok(summary.statesGenerated > 0, 'the counts so far, not zeros');
  });
}

test('random simulation is reproducible from its seed', async () => {
  const argv = 'check twophase --strategy random --seed 7 --walks 50 --json --quiet'.split(' ');
  const first = await runCli(...argv);
  const second = await runCli(...argv);
  assert.is(first.code, 0);
  assert.is(first.json()['exhaustive'], false);
  assert.is(first.json()['seed'], 7);
  assert.is(first.json()['distinctStates'], second.json()['distinctStates']);
  assert.is(first.json()['statesGenerated'], second.json()['statesGenerated']);
  const violation = await runCli(
    'check',
    'diehard',
    '--strategy',
    'random',
    '--seed',
    '3',
    '--walks',
    '2000',
    '--json',
    '--out',
    join(scratch, 'random.trace.json'),
  );
  assert.is(violation.code, 1);
  const replay = await runCli('replay', join(scratch, 'random.trace.json'));
  assert.is(replay.code, 1);
});

test('dfs and 2 workers give the same distinct count as bfs', async () => {
  for (const extra of [
    ['--strategy', 'dfs'],
    ['--workers', '2', '--no-liveness'],
  ]) {
    const run = await runCli('check', 'twophase', '--rms', '4', '--json', '--quiet', ...extra);
    assert.is(run.json()['distinctStates'], 1568, extra.join(' '));
  }
});

test('--workers 2 with a liveness pass searches on one thread, which records the graph', async () => {
  const workers = async (...extra: string[]) => {
    const argv = ['check', 'twophase', '--rms', '3', '--json', '--workers', '2', ...extra];
    const run = await runCli(...argv);
    assert.is(run.code, 0);
    return [run.json()['workers'], run.stderr.includes('One thread: it records the state graph')];
  };
  assert.equal(await workers(), [1, true]);
  assert.equal(await workers('--no-liveness'), [2, false]);
});

test('models and bugs list as JSON; help is printed with exit 0', async () => {
  const models = await runCli('models', '--json');
  const listing = models.json() as { ok: boolean; models: { name: string }[] };
  assert.is(listing.ok, true);
  const names = listing.models.map((model) => model.name);
  assert.ok(names.includes('diehard') && names.includes('twophase'));
  const bugs = await runCli('bugs', '--json');
  assert.is(bugs.code, 0);
  // CONTRACT fixes this one as an array: [{"name","model","description","breaks"}].
  assert.ok(Array.isArray(bugs.json()));
  const bug = (bugs.json() as unknown as Record<string, unknown>[])[0]!;
  assert.equal(Object.keys(bug).slice(0, 4), ['name', 'model', 'description', 'breaks']);
  for (const argv of [
    ['--help'],
    ['check', '--help'],
    ['check', 'twophase', '--help'],
    ['replay', '--help'],
  ]) {
    const run = await runCli(...argv);
    assert.is(run.code, 0, argv.join(' '));
    assert.match(run.stdout, 'Usage:');
  }
});

test('check-all bounds: no symmetry=false preset=none, and a table under 110 columns', () => {
  const raft = findModel('raft')!;
  const bounds = describeBounds(raft, resolveParams(raft, undefined, {}));
  assert.is(bounds, 'servers=3 values=1 max-term=2 max-log=1 max-msgs=1 max-restarts=1 ' +
    'max-compactions=1 max-reads=1');
  // A preset prints the bounds it runs with (issue 11.6): raft.tla has no restarts,
  // compactions or reads bounds; deep sets its own and is symmetric.
  const tla = resolveParams(raft, undefined, { preset: 'raft.tla' });
  assert.is(describeBounds(raft, tla),
    'servers=3 values=1 max-term=2 max-log=1 max-msgs=1 preset=raft.tla');
  const deep = resolveParams(raft, undefined, { preset: 'deep' });
  assert.is(describeBounds(raft, deep), 'servers=3 values=1 max-term=2 max-log=2 max-msgs=2 ' +
    'max-restarts=0 max-compactions=0 max-reads=0 symmetry preset=deep');
  const withSymmetry = resolveParams(raft, undefined, { symmetry: 'true' });
  assert.match(describeBounds(raft, withSymmetry), / max-reads=1 symmetry$/);
  const migration = findModel('migration')!;
  const text = table(['model', 'bounds', 'result', 'distinct states', 'seconds'], [
    ['migration', describeBounds(migration, resolveParams(migration, undefined, {})),
      'violation of NotSolved, as expected', '431113', '15.22'],
  ]);
  const widths = text.split('\n').map((line) => line.length);
  assert.ok(Math.max(...widths) <= 110, text);
  assert.ok(text.split('\n').length > 3, 'the bounds cell wraps onto several lines');
});

test('an invariant that can explain itself prints its witness with the trace', () => {
  const dieHard = findModel('diehard')!;
  const model = dieHard.create({}, undefined);
  // The optional Invariant.explain hook, as a model would give it.
  const explained = Object.create(model, {
    invariants: {
      value: model.invariants.map((invariant) =>
        invariant.name === 'NotSolved'
          ? { ...invariant, explain: (state: { big: number }) => `big holds ${state.big}` }
          : invariant),
    },
  });
  const path = { initialIndex: 0, actionIndexes: [1, 5, 2, 5, 1, 5] };
  const printed: string[] = [];
  const written = writeViolation(
    explained,
    { model: 'diehard', params: {}, bug: undefined },
    { invariant: 'NotSolved', path },
    join(scratch, 'explained.trace.json'),
    { stdout: (text) => printed.push(text), stderr: () => undefined },
  );
  assert.is(written.witness, 'big holds 4');
  assert.ok(printed.includes('Why NotSolved fails: big holds 4'), printed.join('\n'));
});


// traces/ is regenerated by a command (npm run traces:rewrite), never by hand (issue 11.7).
test('replay --rewrite recomputes labels, changed fields and states from the actions', async () => {
  const kept = 'traces/raft/forget-vote-on-restart';
  const original = readFileSync(`${kept}.trace.json`, 'utf8');
  const trace = JSON.parse(original);
  trace.steps[0].label = 'Timeout(server 0)';
  trace.steps[0].changed = {};
  trace.states[3].servers.s3.currentTerm = { '#bigint': '7' };
  const file = join(scratch, 'rewrite.trace.json');
  writeFileSync(file, JSON.stringify(trace));
  assert.is((await runCli('replay', file)).code, 2, 'the edited trace is invalid');
  const run = await runCli('replay', '--rewrite', file);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.stdout, `${file}: rewritten, 9 steps, replays to ElectionSafety`);
  assert.is(readFileSync(file, 'utf8'), original);
  const itf = readFileSync(join(scratch, 'rewrite.itf.json'), 'utf8');
  assert.is(itf, readFileSync(`${kept}.itf.json`, 'utf8'));
  // An action that is not enabled is not a behaviour: nothing is written, exit 2.
  trace.steps[8].action = { type: 'Timeout', server: 9 };
  writeFileSync(file, JSON.stringify(trace));
  const refused = await runCli('replay', '--rewrite', file);
  assert.is(refused.code, 2);
  assert.match(refused.stderr, 'step 9: action {"type":"Timeout","server":9} is not enabled');
  assert.is(JSON.parse(readFileSync(file, 'utf8')).steps[8].action.server, 9);
});

test.run();
