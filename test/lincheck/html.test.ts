// The --html page's content for long keys: a window around the failing operation.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateHistory, seededChoose } from '../../checker/lincheck/generate.js';
import { renderHtml } from '../../checker/lincheck/html.js';
import { lincheckHistory } from '../../checker/lincheck/index.js';

const history = generateHistory({ operations: 1500, clients: 6, keys: 1 }, seededChoose(5));

test('a long key draws 600 operations around the failing one, numbered by full order', () => {
  const reads = history.flatMap((entry, index) => entry.op === 'get' ? [index] : []);
  const target = reads[Math.floor(reads.length / 2)]!;
  const corrupted = history.map((entry, index) =>
    index === target ? { ...entry, output: 'never written' } : entry);
  const result = lincheckHistory(corrupted, { timeLimitSeconds: 60 });
  assert.is(result.verdict, 'not-linearizable');
  const html = renderHtml(result);
  assert.match(html, /1500 operations by 6 clients; \d+ linearized\. Showing 600 of them/);
  assert.is((html.match(/<g class="op /g) ?? []).length, 600);
  assert.is((html.match(/<g class="op failing/g) ?? []).length, 1);
  assert.match(html, new RegExp(`<title>line ${target + 1}: get -&gt; &quot;never written`));
  assert.match(html, /<p class="summary">1500 operations on 1 key, checked in/);
});

test('a linearizable long key shows 600 operations, every one linearized', () => {
  const result = lincheckHistory(history, { timeLimitSeconds: 60 });
  const html = renderHtml(result);
  assert.is((html.match(/<g class="op linearized/g) ?? []).length, 600);
  assert.is((html.match(/<circle class="point"/g) ?? []).length, 600);
  assert.not.match(html, /class="explanation"/);
});

test.run();
