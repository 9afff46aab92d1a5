// Pictures and summaries that used to leave things out (issue 25): `replay --html` carries the
// violated invariant's witness ("Why ... fails"), the migration and controller models draw
// their actors as participants with arrows (not one lifeline of notes), and `check` after a
// liveness lasso prints no "OK" line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'shardkv-pictures-'));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('--html carries the "Why ... fails" witness that the text replay prints', async () => {
  const trace = 'traces/raft/forget-vote-on-restart.trace.json';
  const text = await runCli('replay', trace);
  const why = text.stdout.split('\n').find((line) => line.startsWith('Why '));
  assert.ok(why !== undefined, 'the text replay has a witness');
  const page = join(scratch, 'page.html');
  const html = await runCli('replay', trace, '--html', page);
  assert.is(html.code, 0, html.stderr);
  const escaped = why.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
  assert.match(readFileSync(page, 'utf8'), `<p class="summary witness">${escaped}</p>`);
  assert.match(html.stderr, why);
});

const participantsOf = (mermaid: string) =>
  [...mermaid.matchAll(/participant p\d+ as (.+)/g)].map((match) => match[1]);

test('migration --mermaid: admin, controller, driver and groups, with arrows', async () => {
  const run = await runCli('replay', 'traces/migration/skip-freeze.trace.json', '--mermaid');
  assert.equal(participantsOf(run.stdout).slice(0, 5),
    ['admin', 'controller', 'driver', 'g1', 'g2']);
  assert.match(run.stdout, /p0->>p1: 1\. Join\(gid 2\)/);
  assert.match(run.stdout, /p2->>p3: \d+\. Freeze\(shard 1\)/);
  assert.match(run.stdout, /p2->>p4: \d+\. Install\(shard 1\)/);
});

test('controller --mermaid: the request, the configuration, what each group gains', async () => {
  const run = await runCli('replay', 'traces/controller/non-minimal-rebalance.trace.json',
    '--mermaid');
  assert.equal(participantsOf(run.stdout), ['admin', 'controller', 'g1', 'g2', 'g3']);
  assert.match(run.stdout, 'p1->>p3: 1. gains 0, 1, 2, 3, 4, 5, 6, 7, 8, 9');
  assert.match(run.stdout, /Note over p1: 1\. config 1: 2 2 2/);
});

test('check after a liveness lasso prints no "OK" line', async () => {
  const module = join(scratch, 'flip.mjs');
  writeFileSync(module, `export const model = { name: 'flip', description: 'flips forever',
  create: () => ({ initialStates: () => [{ n: 0 }], actions: () => ['Flip'],
    next: (s) => ({ n: 1 - s.n }), invariants: { Small: (s) => s.n < 2 },
    properties: [{ name: 'ReachesTwo', kind: 'eventually', holds: (s) => s.n === 2 }],
    fairness: { weakLabelPrefixes: ['Flip'] } }) };\n`);
  const run = await runCli('check', module, '--quiet', '--out', join(scratch, 'flip.trace.json'));
  assert.is(run.code, 1);
  assert.not.match(run.stdout, 'OK');
  assert.match(run.stdout, 'VIOLATION of temporal property ReachesTwo (a lasso; no invariant ' +
    'is violated within the bounds)');
  assert.match(run.stdout, 'LIVENESS VIOLATION of ReachesTwo');
});

test.run();
