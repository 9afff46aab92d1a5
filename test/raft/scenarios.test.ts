// Golden Raft scenarios (etcd-style testdata/*.txt): each file's recorded outputs must equal
// what the spec prints now. The test never rewrites a file: `npm run scenarios:rewrite`
// (rewrite-scenarios.ts) does, as its own command, and the diff is reviewed before commit.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runScenarioFile } from './scenario.js';

const directory = join(import.meta.dirname, 'testdata');

for (const file of readdirSync(directory)
  .filter((name) => name.endsWith('.txt'))
  .sort()) {
  test(`scenario ${file}`, () => {
    const expected = readFileSync(join(directory, file), 'utf8');
    assert.fixture(runScenarioFile(expected), expected);
  });
}

test.run();
