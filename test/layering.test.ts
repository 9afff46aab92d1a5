// The layout is the architecture (DESIGN §1, issue 20): spec/ is the protocol alone, the
// checker is an engine over any model, and the runtime runs the protocol without the checker's
// models. This scan reads every relative import and keeps those directions.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/** Each folder and the top-level folders its files may not import. */
const forbiddenImports: Readonly<Record<string, readonly string[]>> = {
  spec: ['models', 'checker', 'verify', 'impl', 'cli', 'invariants'],
  checker: ['spec', 'models', 'verify', 'impl', 'cli', 'invariants'],
  // One invariant library (issue 20 item 4) over views of the protocol's states: the models,
  // the simulator's monitor and conform all evaluate it, so it may depend on none of them.
  invariants: ['models', 'checker', 'verify', 'impl', 'cli'],
  impl: ['models', 'checker', 'verify', 'cli'],
};

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

/** The top-level folder of every relative module a file imports (statically or dynamically). */
function importedFolders(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const pattern = /(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g;
  const specifiers = [...text.matchAll(pattern)].map((match) => match[1]!);
  const top = (specifier: string) => normalize(join(dirname(file), specifier)).split(/[\\/]/)[0]!;
  return specifiers.map(top);
}

function offences(folder: string, forbidden: readonly string[]): string[] {
  return sourceFiles(folder).flatMap((file) =>
    importedFolders(file).filter((target) => forbidden.includes(target))
      .map((target) => `${file} imports ${target}/`));
}

for (const [folder, forbidden] of Object.entries(forbiddenImports)) {
  test(`${folder}/ imports none of ${forbidden.join(', ')}`, () => {
    assert.ok(sourceFiles(folder).length > 10, `found too few files in ${folder}/`);
    assert.equal(offences(folder, forbidden), []);
  });
}

test('the scan sees an import across the line', () => {
  assert.equal(offences('models', ['spec']).length > 0, true, 'models/ imports spec/');
});

test.run();
