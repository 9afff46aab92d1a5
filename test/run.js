#!/usr/bin/env node
// Runs the uvu suite under c8 (coverage thresholds for spec/, invariants/, models/, checker/)
// and ends with the line CI reads: "N passed, N failed". test/run-files.js runs the files in
// parallel processes; c8 sets NODE_V8_COVERAGE, which every child inherits, so its report and
// thresholds cover all of them. Usage: node test/run.js [PATTERN] [--jobs N] [--full] [--record]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const covered = ['spec', 'invariants', 'models', 'checker'];

// Colour only on a terminal, and never with NO_COLOR (https://no-color.org) or TERM=dumb:
// uvu forces colour unless told --no-color, and CI reads this output from a pipe.
const colour =
  process.stdout.isTTY === true && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb';

// Files of types only compile to nothing, so no test can load them and c8 --all would list
// them at 0%. Found by compiling each file with tsx's esbuild, not by a hand-kept list.
function typeOnlyFiles() {
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx'))('esbuild');
  const files = covered.flatMap((folder) =>
    readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(folder, name)),
  );
  return files.filter((file) => {
    const code = esbuild.transformSync(readFileSync(file, 'utf8'), { loader: 'ts' }).code;
    return code.trim() === '';
  });
}

const c8 = [
  'c8', '--all', '--check-coverage', '--lines', '90',
  ...covered.flatMap((folder) => ['--include', `${folder}/**`]),
  ...typeOnlyFiles().flatMap((file) => ['--exclude', file]),
  '--reporter', 'text-summary', '--reporter', 'text',
  'node', 'test/run-files.js', ...process.argv.slice(2),
];
const environment = colour ? process.env : { ...process.env, FORCE_COLOR: '0' };
const child = spawn('npx', c8, { stdio: ['ignore', 'pipe', 'inherit'], env: environment });
let output = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  output += chunk.toString();
});
child.on('close', (code) => {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const totals = /Files: \d+, tests: (\d+), passed: (\d+)/.exec(plain);
  const total = Number(totals?.[1] ?? 0);
  const passed = Number(totals?.[2] ?? 0);
  // A coverage threshold missed (c8 exits 1 with every test passed) counts as one failure.
  const failed = total - passed + (code !== 0 && total === passed ? 1 : 0);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code ?? 1);
});
