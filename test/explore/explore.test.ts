// `shardkv explore` in a real browser (the npm-shipped Chromium of test/helpers/browser.ts):
// a click through DieHard's known solution and the first vote of a Raft election, checking
// what the page shows at each step (the path, the state's fields, the actions' diffs, the
// invariants, the URL, the diagram), and the BFS button loading the shortest violation.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveParams } from '../../checker/params.js';
import { startExploreServer, type ExploreServer } from '../../cli/explore/server.js';
import { ExploreSession } from '../../cli/explore/session.js';
import { findModel } from '../../models/registry.js';
import { withBrowser, type Browser } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';

async function serve(name: string, given: Record<string, string> = {}): Promise<ExploreServer> {
  const definition = findModel(name)!;
  const model = definition.create(resolveParams(definition, undefined, given), undefined);
  return startExploreServer(new ExploreSession(model, 30), name, '127.0.0.1', 0);
}

/** Waits until the page has rendered `path` (the script marks it on <body>). */
async function loaded(browser: Browser, path: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (await browser.evaluate('document.body.dataset.loaded') === path) return;
    await sleep(25);
  }
  assert.unreachable(`the page never showed path ${path}`);
}

const read = (browser: Browser, expression: string) => browser.evaluate(expression);
const texts = (selector: string) =>
  `[...document.querySelectorAll(${JSON.stringify(selector)})].map((node) => node.textContent)`;

/** Clicks the enabled action whose label is `label`; returns the path the page goes to. */
async function click(browser: Browser, label: string): Promise<string> {
  const index = await read(browser, `(() => { const button = [...document.querySelectorAll(` +
    `'#actions button')].find((node) => node.textContent === ${JSON.stringify(label)});` +
    ` if (!button) return null; button.click(); return button.dataset.index; })()`);
  assert.ok(index !== null, `no enabled action ${label}`);
  await sleep(0);
  return String(index);
}

const variable = (browser: Browser, name: string) => read(browser, `[...document.querySelectorAll(` +
  `'#variables tr')].find((row) => row.cells[0].textContent === ${JSON.stringify(name)})` +
  `?.cells[1].textContent`);

test('diehard: the solution clicked step by step, then the BFS button', async () => {
  const server = await serve('diehard');
  try {
    await withBrowser(async (browser) => {
      await browser.screenshot(`${server.url}#0`, 1200, 900);
      await loaded(browser, '0');
      assert.equal(await read(browser, texts('#actions button')), ['FillSmallJug', 'FillBigJug',
        'EmptySmallJug', 'EmptyBigJug', 'SmallToBig', 'BigToSmall']);
      assert.equal(await read(browser, texts('#actions .changes')).then((all) =>
        (all as string[]).slice(0, 2)), ['small: 0 -> 3', 'big: 0 -> 5']);
      const solution = ['FillBigJug', 'BigToSmall', 'EmptySmallJug', 'BigToSmall', 'FillBigJug',
        'BigToSmall'];
      let path = '0';
      for (const label of solution) {
        path += '.' + await click(browser, label);
        await loaded(browser, path);
      }
      assert.is(path, '0.1.5.2.5.1.5');
      assert.equal(await read(browser, texts('#steps li')), solution);
      assert.is(await variable(browser, 'big'), '4');
      assert.is(await read(browser, 'location.hash'), '#0.1.5.2.5.1.5');
      assert.equal(await read(browser, texts('#invariants li[data-holds="false"]')),
        ['\u2717 NotSolved']);
      assert.match(String(await read(browser, "document.getElementById('mermaid').textContent")),
        '6. BigToSmall');
      // The shareable URL: a fresh load of an earlier path shows that state.
      await browser.screenshot(`${server.url}#0.1.5`, 1200, 900);
      await loaded(browser, '0.1.5');
      assert.equal(await read(browser, texts('#steps li')), ['FillBigJug', 'BigToSmall']);
      assert.is(await variable(browser, 'small'), '3');
      await read(browser, "document.getElementById('find-violation').click()");
      await loaded(browser, '0.1.5.2.5.1.5');
      assert.match(String(await read(browser,
        "document.getElementById('search-result').textContent")),
      'shortest violation of NotSolved: 6 steps');
    });
  } finally {
    await server.close();
  }
});

test('raft: a timeout, a vote request sent and delivered; the diagram draws the message',
  async () => {
    const server = await serve('raft');
    try {
      await withBrowser(async (browser) => {
        await browser.screenshot(`${server.url}`, 1200, 900);
        await loaded(browser, '0');
        assert.equal(await read(browser, texts('#invariants li[data-holds="false"]')), []);
        let path = '0.' + await click(browser, 'Timeout(s1)');
        await loaded(browser, path);
        assert.match(String(await variable(browser, 'servers')), 'candidate');
        path += '.' + await click(browser, 'Heartbeat(s1, s3)');
        await loaded(browser, path);
        const deliver = 'Deliver(RequestVoteRequest s1->s3 {"term":1,"lastLogIndex":0,' +
          '"lastLogTerm":0})';
        const changes = await read(browser, `[...document.querySelectorAll('#actions li')]` +
          `.find((item) => item.querySelector('button').textContent === ${JSON.stringify(deliver)})` +
          `.querySelector('.changes').textContent`);
        assert.match(String(changes), 'servers.s3.votedFor: None -> "s1"');
        path += '.' + await click(browser, deliver);
        await loaded(browser, path);
        assert.equal(await read(browser, texts('#steps li')),
          ['Timeout(s1)', 'Heartbeat(s1, s3)', deliver]);
        assert.is(await read(browser, 'location.hash'), `#${path}`);
        assert.ok(Number(await read(browser,
          "document.querySelectorAll('#diagram g.message').length")) >= 1, 'a message arrow');
        assert.match(String(await read(browser,
          "document.getElementById('mermaid').textContent")), /p\d->>p\d: 3\./);
        // A path that is not enabled: one line on the page.
        await browser.screenshot(`${server.url}#0.99`, 1200, 900);
        await loaded(browser, 'error');
        assert.match(String(await read(browser, "document.getElementById('error').textContent")),
          'step 1: action 99 is not enabled there');
      });
    } finally {
      await server.close();
    }
  });

test('explore: a bad model or bound exits 2 before listening', async () => {
  assert.is((await runCli('explore', 'nosuch')).code, 2);
  assert.is((await runCli('explore', 'raft', '--servers', 'x')).code, 2);
  assert.is((await runCli('explore', 'diehard', '--port', '70000')).code, 2);
});

test.run();
