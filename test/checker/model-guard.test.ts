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
// A wide level (about 300 states) in which one state, met by one of the workers, throws.
const wide = module('wide', `{ initialStates: () => [{ a: 0, b: 0 }], actions: () => ['A', 'B'],
  next: (s, x) => { if (s.a === 150 && s.b === 150) throw new Error('boom');
    if (x === 'A') return s.a < 400 ? { a: s.a + 1, b: s.b } : null;
    return s.b < 400 ? { a: s.a, b: s.b + 1 } : null; },
  invariants: { Small: (s) => s.a < 1000 } }`);
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

// Issue 22: a worker thread caught nothing, so its ModelError became "internal error" (exit
// 1) and the other workers finished their level; now it stops them and reads as one thread's.
for (const [name, path, message] of [
  ['throws', throwing, 'model throws: next() failed for action "Inc" in state {"n":2}: boom'],
  ['wide', wide, 'model wide: next() failed for action "A" in state {"a":150,"b":150}: boom'],
] as const) {
  test(`${name}: bfs on 1 and 2 worker threads, the same one line, exit 2`, async () => {
    for (const workers of ['1', '2']) {
      const run = await runCli('check', path, '--workers', workers, '--quiet');
      assert.is(run.code, 2, `${workers} workers`);
      assert.is(run.stderr, `shardkv check: ${message}`, `${workers} workers`);
    }
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
