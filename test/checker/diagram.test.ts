// `shardkv replay FILE --mermaid | --html OUT`: traces drawn as sequence diagrams.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderMermaid, type DiagramStep } from '../../checker/diagram.js';
import { withBrowser } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';

const scratch = scratchDirectory('shardkv-diagram-');

/** A fresh counterexample of forget-vote-on-restart: two leaders in one term. */
async function forgetVoteTrace(): Promise<string> {
  const out = join(scratch, 'forget-vote.trace.json');
  const run = await runCli('check', 'raft', '--bug', 'forget-vote-on-restart', '--out', out,
    '--quiet');
  assert.is(run.code, 1);
  return out;
}

test('--mermaid: messages as arrows between s1..s3, two leaders of one term as notes', async () => {
  const trace = await forgetVoteTrace();
  const run = await runCli('replay', trace, '--mermaid');
  assert.is(run.code, 0, run.stderr);
  const lines = run.stdout.trimEnd().split('\n');
  assert.is(lines[0], 'sequenceDiagram');
  assert.equal(lines.slice(1, 4), [
    '  participant p0 as s1', '  participant p1 as s2', '  participant p2 as s3',
  ]);
  assert.ok(lines.some((line) => /^ {2}p\d->>p\d: \d+\. RequestVote t1 last 0\/0$/.test(line)));
  const leaders = lines.filter((line) => line.endsWith('leader of term 1'));
  assert.is(leaders.length, 2, 'ElectionSafety fails: two servers lead term 1');
  assert.match(run.stderr, /Reproduced: invariant ElectionSafety is violated/);
});

test('renderMermaid: text that is Mermaid syntax is neutralised; lost messages end in a cross', () => {
  const steps: DiagramStep[] = [{
    step: 1,
    label: 'x',
    events: [
      { kind: 'message', from: 'a', to: 'b', text: 'put k=v; #1', lost: true },
      { kind: 'note', over: 'b', text: 'line\nbreak' },
    ],
  }];
  assert.is(renderMermaid(steps), [
    'sequenceDiagram',
    '  participant p0 as a',
    '  participant p1 as b',
    '  p0-xp1: 1. put k=v, ,1',
    '  Note over p1: 1. line break',
    '',
  ].join('\n'));
});

test('a model without a diagram draws each step as a note', async () => {
  const out = join(scratch, 'diehard.trace.json');
  assert.is((await runCli('check', 'diehard', '--out', out, '--quiet')).code, 1);
  const run = await runCli('replay', out, '--mermaid');
  assert.is(run.code, 0);
  assert.match(run.stdout, /participant p0 as model\n {2}Note over p0: 1\. Fill/);
});

test('--html: one self-contained page; a real browser draws every arrow', async () => {
  const trace = await forgetVoteTrace();
  const page = join(scratch, 'forget-vote.html');
  const run = await runCli('replay', trace, '--html', page, '--json');
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.json(), { ok: true, result: 'violation', html: page });
  const html = readFileSync(page, 'utf8');
  assert.not.match(html, /https?:\/\/(?!www\.w3\.org\/2000\/svg)|<script|<link|src=/);
  assert.match(html, /<h1>raft with bug forget-vote-on-restart: \d+ steps<\/h1>/);
  assert.match(html, /servers\.s\d\.role: &quot;candidate&quot; -&gt; &quot;leader&quot;/);
  const arrows = (html.match(/<g class="message/g) ?? []).length;
  assert.ok(arrows >= 4, `${arrows} arrows`);
  const { png, drawn, title } = await withBrowser(async (browser) => ({
    png: await browser.screenshot(`file://${page}`, 1000, 900),
    drawn: await browser.evaluate('[...document.querySelectorAll("g.message line")]' +
      '.filter((line) => line.getBoundingClientRect().width > 0).length'),
    title: await browser.evaluate('document.querySelector("h1").textContent'),
  }));
  assert.equal([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  assert.ok(png.length > 20_000, `a ${png.length}-byte screenshot is too small to show the page`);
  assert.is(drawn, arrows);
  assert.match(String(title), /^raft with bug forget-vote-on-restart/);
});

test('--mermaid with --html or --json is a usage error', async () => {
  const trace = await forgetVoteTrace();
  assert.is((await runCli('replay', trace, '--mermaid', '--html', join(scratch, 'x'))).code, 2);
  assert.is((await runCli('replay', trace, '--mermaid', '--json')).code, 2);
});

test.run();
