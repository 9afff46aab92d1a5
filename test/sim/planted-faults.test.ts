// Issue 26 "Done when": faults that cost availability, agreement or a right answer, planted
// (as catalogued switches, or in a copy of the code), each found by the project's commands.
// The WAL that skips its checksum is the disk issue's (item 5), not here.
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { checkLiveness } from '../../checker/liveness.js';
import type { AnyModel } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import { controllerDefinition } from '../../models/controller/index.js';
import { raftDefinition } from '../../models/raft/index.js';
import { simulationOptions } from '../../verify/simulate/options.js';
import { runSimulation } from '../../verify/simulate/run.js';
import { shellRuntime } from '../../verify/simulate/shell-runtime.js';

test('a PreVote bug that blocks elections: check finds a LeaderElected lasso', () => {
  const bug = 'prevote-response-term';
  const params = resolveParams(raftDefinition, bug, {});
  assert.is(params.preset, 'liveness-9.6');
  const model = raftDefinition.create(params, bug) as AnyModel;
  const result = checkLiveness(model);
  assert.is(result.result, 'violation');
  assert.is(result.property, 'LeaderElected');
  assert.ok(result.lasso!.loop > 0, 'a lasso: a prefix and a loop');
});

// Seed 2: the first whose swarm draws run PreVote (seed 1 runs without it, so the bug is idle).
test('a PreVote bug that blocks elections: simulate fails LeaderAfterHeal', async () => {
  const run = await runSimulation(simulationOptions(2, { bug: 'prevote-response-term' }),
    shellRuntime);
  assert.is(run.failure?.invariant, 'LeaderAfterHeal', run.failure?.detail);
  assert.match(run.failure!.detail, /has no leader 6000 ms after the faults were repaired/);
});

test('a controller answering an older configuration: check and simulate find it', async () => {
  const bug = 'query-answers-older';
  const model = controllerDefinition.create(resolveParams(controllerDefinition, bug, {}), bug);
  assert.is(breadthFirstSearch(model).invariant, 'HistoryImmutable');
  const run = await runSimulation(simulationOptions(1, { bug }), shellRuntime);
  assert.is(run.failure?.invariant, 'AnswersMatchSpec', run.failure?.detail);
  assert.match(run.failure!.detail, /answered admin's query \d+ with configuration \d+, but/);
});

/**
 * Runs simulator seed `seed` in a copy of the tree where `file` has `anchor` replaced by
 * `planted` (the plant goes into the copy only); returns the run's failure.
 */
function failureInCopy(file: string, anchor: string, planted: string, seed: number) {
  const copy = mkdtempSync(join(tmpdir(), 'shardkv-plant-'));
  try {
    for (const directory of ['spec', 'impl', 'invariants', 'verify', 'checker', 'models']) {
      cpSync(directory, join(copy, directory), { recursive: true });
    }
    for (const name of ['package.json', 'tsconfig.json']) cpSync(name, join(copy, name));
    symlinkSync(join(process.cwd(), 'node_modules'), join(copy, 'node_modules'));
    const text = readFileSync(join(copy, file), 'utf8');
    assert.ok(text.includes(anchor), 'the plant anchor moved');
    writeFileSync(join(copy, file), text.replace(anchor, planted));
    writeFileSync(join(copy, 'run-seed.ts'), [
      "import { simulationOptions } from './verify/simulate/options.js';",
      "import { runSimulation } from './verify/simulate/run.js';",
      "import { shellRuntime } from './verify/simulate/shell-runtime.js';",
      `const run = await runSimulation(simulationOptions(${seed}), shellRuntime);`,
      'console.log(JSON.stringify(run.failure));',
    ].join('\n'));
    const output = execFileSync(process.execPath, ['--import', 'tsx', 'run-seed.ts'],
      { cwd: copy, encoding: 'utf8' });
    return JSON.parse(output) as { invariant: string; detail: string } | null;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

// One replica (g100-1) applies every client command a second time, under another seq so
// that dedup lets it through. The leader's state, which the value checks read, stays right:
// only comparing replicas shows it. Seed 5: seed 1 draws leader churn, whose elections leave
// clients little done.
test('an entry applied twice at one replica: simulate fails ReplicaAgreement (in a copy)', () => {
  const anchor = "      freed = (entry.command as { type?: unknown }).type === 'delete';";
  const failure = failureInCopy('impl/node/server.ts', anchor, `${anchor}
      const planted = entry.command as { type?: string; request?: { seq: number } };
      if (this.name === 'g100-1' && planted.type === 'client' && planted.request) {
        this.machine.apply({ ...planted,
          request: { ...planted.request, seq: planted.request.seq + 1_000_000 } });
      }`, 5);
  assert.is(failure?.invariant, 'ReplicaAgreement');
  assert.match(failure!.detail, /^g100: g100-1 holds state \w+ at applied index \d+, g100-\d held/);
});

// The shell decides whether it serves a read's shard as the read arrives, and reads the
// value once the read's index applied: a shard installed in between is answered
// ErrWrongGroup. The clerk only asks again, so no history shows it; comparing each answer
// with the spec's for the state it was sent from does (seed 4; seed 1 until a follower's
// queued appends shared its sync, seed 5 until the simulator's servers ran flow control).
test('a read refused from the state it arrived at: simulate fails ReplyMatchesSpec (in a copy)',
  () => {
    const anchor = '    () => reply(machine.read(request)),';
    const failure = failureInCopy('impl/node/requests.ts', anchor, `
    ((early) => () => reply(early.type === 'group-result' && early.result.type === 'error'
      ? early : machine.read(request)))(machine.read(request)),`, 4);
    assert.is(failure?.invariant, 'ReplyMatchesSpec', failure?.detail);
    assert.match(failure!.detail,
      /answered client-\d+'s get "\w+" .*ErrWrongGroup.* where the spec answers \{"type":"value"/);
  });

test.run();
