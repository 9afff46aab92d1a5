// A user's model that throws, or holds a value the codec cannot store (a bigint), is invalid
// input: `check` exits 2 with one line naming the model, the failing function, the action and
// the state (checker/model-guard.ts), not "internal error" with a stack and exit 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli.js';

const directory = mkdtempSync(join(tmpdir(), 'shardkv-model-guard-'));
test.after(() => rmSync(directory, { recursive: true, force: true }));

function module(name: string, body: string): string {
  const path = join(directory, `${name}.mjs`);
  writeFileSync(path, `export const model = { name: '${name}', description: 'x', ` +
    `create: () => (${body}) };\n`);
  return path;
}

const throwing = module('throws', `{ initialStates: () => [{ n: 0 }], actions: () => ['Inc'],
  next: (s) => { if (s.n === 2) throw new Error('boom'); return s.n < 4 ? { n: s.n + 1 } : null; },
  invariants: { Small: (s) => s.n < 10 } }`);
const bigint = module('big', `{ initialStates: () => [{ n: 0n }], actions: () => ['Inc'],
  next: (s) => (s.n < 3n ? { n: s.n + 1n } : null), invariants: { Small: (s) => s.n < 10n } }`);
const badInvariant = module('badinv', `{ initialStates: () => [{ n: 0 }], actions: () => [],
  next: () => null, invariants: { Broken: (s) => s.missing.field } }`);

for (const strategy of ['bfs', 'dfs']) {
  test(`${strategy}: next() throwing names the action and the state; exit 2`, async () => {
    const run = await runCli('check', throwing, '--strategy', strategy, '--quiet');
    assert.is(run.code, 2);
    assert.is(run.stderr, 'shardkv check: model throws: next() failed for action "Inc" in ' +
      'state {"n":2}: boom');
  });
}

test('a bigint in a state: exit 2, the state shown', async () => {
  const run = await runCli('check', bigint, '--json', '--quiet');
  assert.is(run.code, 2);
  assert.equal(run.json(), { ok: false, error: 'shardkv check: model big: encoding the state ' +
    'failed in state {"n":"0n"}: cannot encode a bigint in a state' });
});

test('an invariant that throws is named', async () => {
  const run = await runCli('check', badInvariant, '--quiet');
  assert.is(run.code, 2);
  assert.match(run.stderr, /^shardkv check: model badinv: invariant Broken failed in state \{"n":0\}: /);
  assert.ok(!run.stderr.includes('\n'), 'one line');
});

test.run();
