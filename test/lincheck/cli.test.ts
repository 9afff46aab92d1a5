// `shardkv lincheck` as users call it: exit codes, --json, --help, --html (CONTRACT "Histories").
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../cli/main.js';
import { withBrowser } from '../helpers/browser.js';
import { scratchDirectory } from '../helpers/scratch.js';

const corpus = fileURLToPath(new URL('../../corpus/lincheck/', import.meta.url));
const directory = scratchDirectory('lincheck-');

interface Outcome {
  readonly code: number;
  readonly stdout: string[];
  readonly stderr: string[];
}

async function run(...argv: string[]): Promise<Outcome> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(['lincheck', ...argv], {
    stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text),
  });
  return { code, stdout, stderr };
}

function file(name: string, lines: readonly object[] | string): string {
  const path = join(directory, name);
  const text = typeof lines === 'string'
    ? lines : lines.map((line) => JSON.stringify(line)).join('\n');
  writeFileSync(path, text);
  return path;
}

test('linearizable: exit 0 and one JSON object', async () => {
  const { code, stdout } = await run(join(corpus, 'porcupine-c10-ok.jsonl'), '--json');
  assert.is(code, 0);
  const json = JSON.parse(stdout.at(-1)!);
  assert.equal([json.ok, json.result, json.operations, json.keys], [true, 'linearizable', 337, 10]);
  assert.type(json.seconds, 'number');
  assert.is(json.key, undefined);
});

test('not linearizable: exit 1, the key, an error and the explanation', async () => {
  const { code, stdout } = await run(join(corpus, 'porcupine-c01-bad.jsonl'), '--json');
  assert.is(code, 1);
  const json = JSON.parse(stdout.at(-1)!);
  assert.equal([json.ok, json.result, json.key], [false, 'not-linearizable', '7']);
  assert.equal(json.explanation, { prefixLines: [2, 19, 28], state: '"x 0 0 yx 0 3 y"',
    failingLine: 30, failing: 'client 0: get("7") -> "x 0 0 y"' });
  assert.ok(json.error.startsWith('not linearizable: key "7"'));
});

test('not linearizable, in text: the headline then the explanation', async () => {
  const { code, stdout } = await run(join(corpus, 'porcupine-c01-bad.jsonl'));
  assert.is(code, 1);
  const lines = stdout.join('\n').split('\n');
  assert.match(lines[0]!, /^not linearizable: key "7" \(38 operations on 8 keys, [\d.]+ s\)$/);
  assert.is(lines.at(-1),
    'and this operation cannot follow: line 30: client 0: get("7") -> "x 0 0 y"');
});

test('time limit reached: exit 1, result unknown, never ok', async () => {
  const lines: object[] = [];
  for (let index = 0; index < 1500; index++) {
    // Ten clients appending concurrently to one key, never read: every order is possible.
    const client = index % 10;
    const round = Math.floor(index / 10);
    lines.push({ client, op: 'append', key: 'k', value: `${index},`,
      call: round * 10, return: round * 10 + 9 });
  }
  lines.push({ client: 0, op: 'get', key: 'k', output: 'impossible',
    call: 100_000, return: 100_001 });
  const { code, stdout } = await run(file('slow.jsonl', lines), '--json', '--time-limit', '0.05');
  assert.is(code, 1);
  const json = JSON.parse(stdout.at(-1)!);
  assert.equal([json.ok, json.result, json.key], [false, 'unknown', 'k']);
  assert.match(json.error, /time limit of 0.05 s ran out .* not a pass/);
});

test('invalid input: exit 2 with the line, one line on stderr', async () => {
  const path = file('bad.jsonl',
    '{"client":1,"op":"put","key":"k","value":"v","call":0,"return":1}\n'
    + '{"client":2,"op":"get","key":"k","call":2,"return":3}\n');
  const { code, stdout, stderr } = await run(path, '--json');
  assert.is(code, 2);
  const message = `shardkv lincheck: ${path}: line 2: a get with outcome ok needs an "output"`;
  assert.equal(stderr, [message]);
  assert.equal(stdout.map((line) => JSON.parse(line)), [{ ok: false, error: message }]);
});

test('usage errors: no file, missing file, bad time limit, unknown flag, extra args', async () => {
  assert.equal((await run()).stderr, ['shardkv lincheck: lincheck needs a history FILE']);
  const missing = await run(join(directory, 'absent.jsonl'));
  assert.is(missing.code, 2);
  assert.match(missing.stderr[0]!, /cannot read .*absent\.jsonl: ENOENT/);
  const ok = join(corpus, 'porcupine-c01-ok.jsonl');
  assert.equal((await run(ok, '--time-limit', '0')).stderr,
    ['shardkv lincheck: --time-limit expects a positive number, got \'0\'']);
  assert.is((await run(ok, '--fast')).code, 2);
  assert.is((await run(ok, ok)).code, 2);
  assert.is((await run(ok, '--html', join(directory, 'no', 'such', 'dir.html'))).code, 2);
});

test('an empty history is linearizable, and said to be empty', async () => {
  const { code, stdout } = await run(file('empty.jsonl', '\n'));
  assert.is(code, 0);
  assert.equal(stdout, ['linearizable: the history is empty (no operations to check)']);
  const json = await run(file('empty.jsonl', ''), '--json');
  assert.equal(JSON.parse(json.stdout.at(-1)!).empty, true);
});

test('--help describes the command and its exit codes', async () => {
  const { code, stdout } = await run('--help');
  assert.is(code, 0);
  assert.match(stdout[0]!, /Usage: shardkv lincheck FILE/);
  assert.match(stdout[0]!, /--time-limit SECONDS/);
  assert.match(stdout[0]!, /--html FILE/);
});

test('--html writes a self-contained page that headless Chromium renders', async () => {
  const page = join(directory, 'c01-bad.html');
  const { code } = await run(join(corpus, 'porcupine-c01-bad.jsonl'), '--html', page);
  assert.is(code, 1);
  const html = readFileSync(page, 'utf8');
  assert.not.match(html, /https?:|<script|<link|src=/);
  // The deciding key comes first: its 5 operations, 3 linearized, the failing read in red.
  const first = html.split('<section>')[1]!;
  assert.match(first, /^<h2>key &quot;7&quot; <span class="verdict not-linearizable">/);
  assert.is((first.match(/<g class="op /g) ?? []).length, 5);
  assert.is((first.match(/<circle class="point"/g) ?? []).length, 3);
  assert.is((html.match(/<g class="op failing/g) ?? []).length, 1);
  assert.match(first, /<title>line 30: get -&gt; &quot;x 0 0 y&quot;<\/title>/);
  // A real browser (the npm package's Chromium): the page must load, lay out its bars and
  // paint. No browser is a failure with its reason, never a skip.
  const { png, bars } = await withBrowser(async (browser) => ({
    png: await browser.screenshot(`file://${page}`, 1280, 900),
    bars: await browser.evaluate(
      '[...document.querySelectorAll("g.op rect")].filter((bar) => ' +
        'bar.getBoundingClientRect().width > 0).length'),
  }));
  assert.equal([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.ok(png.length > 20_000, `a ${png.length}-byte screenshot is too small to show the page`);
  assert.is(bars, (html.match(/<g class="op /g) ?? []).length);
});

test.run();
