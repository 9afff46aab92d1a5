// STYLE §1: impl/ is the only place that touches the network, the disk, clocks, timers or
// randomness. test/spec-purity.test.ts keeps spec/ pure; this keeps the disk, the network and
// unseeded randomness out of checker/ (which reads a clock only for its time limits and
// progress lines), and keeps the simulated adapters deterministic: the code the simulator runs
// (impl/io, impl/wal, impl/sim, the seeded generator) reads no real clock and no entropy.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

type Rule = readonly [RegExp, string];

const network: Rule = [/from ['"]node:(net|dgram|http|https|tls)['"]/, 'the network'];
const disk: Rule = [/from ['"]node:fs(\/promises)?['"]/, 'the disk'];
const processes: Rule = [/from ['"]node:child_process['"]/, 'child processes'];
const unseeded: Rule = [/Math\.random|from ['"]node:crypto['"]/, 'unseeded randomness'];
const clock: Rule = [/\bDate\b|\bperformance\./, 'a real clock'];
const timers: Rule = [/\bset(Timeout|Interval)\b/, 'a real timer'];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function offences(files: readonly string[], rules: readonly Rule[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8').split('\n').forEach((line, index) => {
      const trimmed = line.trimStart();
      if (trimmed.startsWith('//') || trimmed.startsWith('*')) return;
      for (const [pattern, what] of rules) {
        if (pattern.test(line)) found.push(`${file}:${index + 1} uses ${what}`);
      }
    });
  }
  return found;
}

// A checkpoint's file goes through the Directory the CLI supplies (checker/storage.ts,
// cli/file-directory.ts): no exception.
test('checker/ touches no network, disk, child process or unseeded randomness', () => {
  const files = sourceFiles('checker');
  assert.ok(files.length > 10, `found only ${files.length} checker files`);
  assert.equal(offences(files, [network, disk, processes, unseeded]), []);
});

test('the node shell, the clerk, the simulated adapters and the WAL read no real clock, timer or entropy', () => {
  const files = ['impl/io', 'impl/wal', 'impl/sim', 'impl/node', 'impl/clerk', 'impl/trace',
    'verify/simulate', 'verify/replay']
    .flatMap(sourceFiles)
    .concat(['impl/random/seeded-random.ts', 'impl/random/splitmix64.ts']);
  assert.ok(files.length > 15, `found only ${files.length} files`);
  assert.equal(offences(files, [network, disk, processes, unseeded, clock, timers]), []);
});

test('verify/conform touches no network, disk, child process, clock or randomness', () => {
  const files = sourceFiles('verify/conform');
  assert.ok(files.length > 5, `found only ${files.length} conform files`);
  assert.equal(offences(files, [network, disk, processes, unseeded, clock, timers]), []);
});

test('the scan catches what it looks for', () => {
  const sample = ['import { open } from \'node:fs/promises\';', 'const x = Math.random();',
    'const t = Date.now();', 'setTimeout(f, 1);', 'import net from "node:net";'];
  const rules = [network, disk, processes, unseeded, clock, timers];
  const matches = sample.map((line) => rules.filter(([pattern]) => pattern.test(line)).length);
  assert.equal(matches, [1, 1, 1, 1, 1]);
});

test.run();
