// The docs cannot drift from the code: every ```sh block of README.md and docs/*.md runs here,
// with the exit codes and output its comments promise; every `npm run NAME` shown names a
// script; every relative link leads to a file (and heading) that exists. The convention is
// documented in docs/index.md ("How the docs are tested").
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scratchDirectory } from './helpers/scratch.js';
import {
  commentOf, expectationsOf, fencedBlocks, headingSlugs, type Block,
} from './helpers/markdown.js';

const repository = process.cwd();
const blockTimeoutMs = 180_000;
// Pages other branches are writing; a link to one is checked once the page exists.
const pagesWrittenElsewhere = new Set(['docs/scale.md', 'docs/mbt.md', 'docs/catalog.md',
  'docs/progress-checks.md', 'docs/disk-faults.md', 'docs/explore.md', 'docs/deploy.md']);

const pages = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md'))
  .map((name) => join('docs', name)).sort()];
// DOCS_PAGES=docs/cli.md,README.md runs only those pages' blocks (while writing a page).
const only = process.env['DOCS_PAGES']?.split(',');
const runnable = only === undefined ? pages : pages.filter((page) => only.includes(page));

/** A folder that sees the repository's files (by symlink) but keeps what commands write. */
function sandbox(): string {
  const directory = scratchDirectory('shardkv-docs-');
  for (const entry of readdirSync(repository)) {
    if (entry === '.git' || entry === 'shardkv-out' || entry === 'coverage') continue;
    symlinkSync(join(repository, entry), join(directory, entry));
  }
  mkdirSync(join(directory, 'tmp'));
  return directory;
}

// `npx shardkv` is what npx resolves in the repository: the package's own bin. Calling it
// directly saves npx's second of start-up per command.
const prelude = `npx() { if [ "$1" = shardkv ]; then shift; node "$SHARDKV_BIN" "$@"; ` +
  `else command npx "$@"; fi; }\n`;

const shellQuoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The block as a script: annotated commands check their exit code and output. */
function script(block: Block): string {
  const lines = block.lines.map((line) => {
    const comment = commentOf(line);
    if (comment === null) return line;
    const { exitCode, prints } = expectationsOf(comment.text);
    if (exitCode === 0 && prints === null) return line;
    const command = comment.command;
    const quoted = shellQuoted(command);
    const checks = [
      `if ( ${command} ) > "$__out" 2>&1; then __rc=0; else __rc=$?; fi; cat "$__out"`,
      `[ "$__rc" -eq ${exitCode} ] || ` +
        `{ echo "DOCS: expected exit ${exitCode}, got $__rc: "${quoted} >&2; exit 97; }`,
    ];
    if (prints !== null) {
      checks.push(`grep -qF -- ${shellQuoted(prints)} "$__out" || { echo "DOCS: output lacks "` +
        `${shellQuoted(prints)}": "${quoted} >&2; exit 98; }`);
    }
    return checks.join('\n');
  });
  return `set -eo pipefail\n${prelude}__out=$(mktemp)\n${lines.join('\n')}\n`;
}

for (const page of runnable) {
  const blocks = fencedBlocks(readFileSync(page, 'utf8'))
    .filter((block) => block.language === 'sh');
  if (blocks.length === 0) continue;
  test(`${page}: every sh block runs as shown (${blocks.length} blocks)`, () => {
    const directory = sandbox();
    for (const block of blocks) {
      const run = spawnSync('bash', ['-c', script(block)], {
        cwd: directory,
        encoding: 'utf8',
        timeout: blockTimeoutMs,
        // No coverage from the commands: what they run is covered by the other tests, and a
        // user model compiled by tsx carries a source map c8 cannot read.
        env: { ...process.env, TMPDIR: join(directory, 'tmp'), NO_COLOR: '1',
          NODE_V8_COVERAGE: '', SHARDKV_BIN: join(repository, 'bin', 'shardkv.js') },
      });
      const lines = `${run.stdout}${run.stderr}`.split('\n');
      const verdicts = lines.filter((line) => line.startsWith('DOCS: '));
      const output = [...lines.slice(-20), ...verdicts].join('\n');
      assert.is(run.status, 0, `${page}:${block.line}: the block failed\n${output}`);
    }
  });
}

test('the README is short; its quick start is two commands: npm ci once, then npm start', () => {
  const readme = readFileSync('README.md', 'utf8');
  assert.ok(readme.split('\n').length <= 200, 'README.md has more than 200 lines');
  const start = readme.indexOf('## Quick start');
  const quickStart = fencedBlocks(readme.slice(start, readme.indexOf('\n## ', start + 1)))[0]!;
  const commands = quickStart.lines.filter((line) => line.trim() !== '' && !line.startsWith('#'));
  assert.equal(commands.map((line) => line.split('#')[0]!.trim()), ['npm ci', 'npm start']);
});

test('every npm script the docs name exists', () => {
  const scripts = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).scripts);
  for (const page of pages) {
    for (const block of fencedBlocks(readFileSync(page, 'utf8'))) {
      for (const line of block.lines) {
        for (const match of line.matchAll(/\bnpm (?:run (\S+)|(start|test)\b)/g)) {
          const name = match[1] ?? match[2]!;
          assert.ok(scripts.includes(name), `${page}:${block.line}: no npm script '${name}'`);
        }
      }
    }
  }
});

test('every relative link leads to a file, and a #heading to one of its headings', () => {
  for (const page of pages) {
    const text = readFileSync(page, 'utf8');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [path, fragment] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : join(dirname(page), path);
      const relative = resolve(file).slice(repository.length + 1);
      if (!existsSync(file)) {
        assert.ok(pagesWrittenElsewhere.has(relative), `${page}: link to missing ${target}`);
        continue;
      }
      if (fragment !== undefined && file.endsWith('.md')) {
        const slugs = headingSlugs(readFileSync(file, 'utf8'));
        assert.ok(slugs.has(fragment), `${page}: ${target}: no such heading in ${relative}`);
      }
    }
  }
});

test.run();
