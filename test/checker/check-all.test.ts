// @tier full: the default check of every model (two minutes of CPU).
// `shardkv check-all` (what `npm start` runs): the default bounded check of every model, raft
// and migration included, the longest part of the CLI tests. A file of its own, so that the
// parallel test runner can run it beside the rest of them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli.js';

test('check-all: a table of every model; DieHard fails as expected and the exit is 0', async () => {
  const run = await runCli('check-all', '--json');
  const summary = run.json() as {
    ok: boolean;
    models: { model: string; result: string; expected: boolean }[];
  };
  assert.is(run.code, 0);
  assert.is(summary.ok, true);
  const dieHard = summary.models.find((row) => row.model === 'diehard');
  assert.equal(dieHard, { ...dieHard!, result: 'violation of NotSolved', expected: true });
  assert.ok(
    summary.models.every((row) => row.expected),
    JSON.stringify(summary.models),
  );
});

test.run();
