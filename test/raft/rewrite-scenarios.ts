// `npm run scenarios:rewrite`: rewrites the recorded outputs of the golden Raft scenarios
// (testdata/*.txt) from what the spec prints now, and lists the files that changed. Review
// the diff before committing it; scenarios.test.ts only compares.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runScenarioFile } from './scenario.js';

const directory = join(import.meta.dirname, 'testdata');
for (const file of readdirSync(directory).filter((name) => name.endsWith('.txt')).sort()) {
  const path = join(directory, file);
  const recorded = readFileSync(path, 'utf8');
  const actual = runScenarioFile(recorded);
  if (actual === recorded) continue;
  writeFileSync(path, actual);
  process.stdout.write(`rewrote ${path}\n`);
}
