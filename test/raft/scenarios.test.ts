// Golden Raft scenarios (etcd-style testdata/*.txt). REWRITE=1 rewrites the expected outputs;
// review the diff before committing it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runScenarioFile } from './scenario.js';

const directory = join(import.meta.dirname, 'testdata');

for (const file of readdirSync(directory)
  .filter((name) => name.endsWith('.txt'))
  .sort()) {
  test(`scenario ${file}`, () => {
    const path = join(directory, file);
    const expected = readFileSync(path, 'utf8');
    const actual = runScenarioFile(expected);
    if (process.env['REWRITE'] === '1') writeFileSync(path, actual);
    else assert.fixture(actual, expected);
  });
}

test.run();
