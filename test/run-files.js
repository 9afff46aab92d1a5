#!/usr/bin/env node
// Runs each test file in its own process, up to --jobs at a time, longest first by the times
// measured in test/durations.json (wall and CPU seconds of one run, with --record), so that
// the slow files do not start last. The default is one more job than the cores: the cluster
// files spend most of their time waiting for their nodes (a fifth to a third of their wall
// time is CPU), and one more file uses the CPU they leave idle. Files that took under
// batchCpuSeconds of CPU and batchSeconds of wall time when measured run in batches, several in
// one process (test/run-batch.js), which saves tsx's start-up per file; --record runs every
// file alone, to measure it.
// The files are independent (each makes its own scratch folders, clusters and ports), so their
// order does not matter. Prints one line per passing file, the whole output of a failing one,
// the slowest ten files, and a totals line that test/run.js reads:
//   "Files: F, tests: N, passed: P"
// Two tiers: a file whose head says `// @tier full` (a sweep: every seed, every bug's whole
// search, every worker count) runs only with --full (`npm run test:full`, what CI runs); the
// quick tier (`npm test`) is every other file.
// Usage: node test/run-files.js [PATTERN] [--jobs N] [--full] [--record]
//   PATTERN  a regular expression over the paths under test/ (default: every *.test.ts)
//   --full   runs the full tier's files too
//   --record rewrites test/durations.json with the times of this run
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const durationsFile = join('test', 'durations.json');
// A file test/durations.json does not know yet may be slow: it starts first.
const unmeasuredSeconds = Number.POSITIVE_INFINITY;
const slowestShown = 10;
const batchCpuSeconds = 6;
const batchSeconds = 6;
const batchSize = 8;

function parseArguments(argv) {
  const options = {
    pattern: '.*\\.test\\.ts$', jobs: availableParallelism() + 1, record: false, full: false,
  };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--record') options.record = true;
    else if (argument === '--full') options.full = true;
    else if (argument === '--jobs') {
      options.jobs = Number(argv[index + 1]);
      index += 1;
      if (!Number.isInteger(options.jobs) || options.jobs < 1) {
        console.error('test/run-files.js: --jobs takes a positive integer');
        process.exit(2);
      }
    } else options.pattern = argument;
  }
  return options;
}

function testFiles(pattern) {
  const matcher = new RegExp(pattern);
  return readdirSync('test', { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts') && matcher.test(name))
    .map((name) => join('test', name))
    .sort();
}

const fullTierMark = /^\/\/ @tier full\b/m;

// The mark must sit in the file's opening comment, where a reader looks for it.
function isFullTier(file) {
  return fullTierMark.test(readFileSync(file, 'utf8').slice(0, 2000));
}

function knownDurations() {
  return existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
}

// uvu prints its totals at the end of a file's run: "Total: N", "Passed: N".
function counts(output) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const total = /Total:\s+(\d+)/.exec(plain);
  const passed = /Passed:\s+(\d+)/.exec(plain);
  return { total: Number(total?.[1] ?? 0), passed: Number(passed?.[1] ?? 0) };
}

// bash's `times` prints the CPU seconds of the processes it waited for (the test file and the
// children it waited for): a figure the neighbours' load barely moves, unlike the wall time.
const cpuReport = 'times >&3';

function cpuSeconds(report) {
  const children = report.trim().split('\n').at(-1) ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)]
    .reduce((sum, [, minutes, rest]) => sum + Number(minutes) * 60 + Number(rest), 0);
  return seconds;
}

/** Runs the files in one process (run-batch.js for more than one); one result for them all. */
function runFiles(files, colour) {
  const started = performance.now();
  const environment = colour ? process.env : { ...process.env, FORCE_COLOR: '0' };
  const entry = files.length === 1 ? [] : [join('test', 'run-batch.js')];
  const command = `"$0" --import tsx "$@"; status=$?; ${cpuReport}; exit $status`;
  const child = spawn('bash', ['-c', command, process.execPath, ...entry, ...files], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: environment,
  });
  let output = '';
  let report = '';
  child.stdout.on('data', (chunk) => (output += chunk.toString()));
  child.stderr.on('data', (chunk) => (output += chunk.toString()));
  child.stdio[3].on('data', (chunk) => (report += chunk.toString()));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      const cpu = cpuSeconds(report);
      const { total, passed } = counts(output);
      // A file that crashed before uvu's totals, or exited non-zero with every test passed
      // (an unhandled rejection after the tests), counts as one failed test.
      const failed = code === 0 ? total - passed : Math.max(1, total - passed);
      const label = files.length === 1 ? files[0] : `${files.length} small files in one process`;
      resolve({ files, file: files.join(', '), label, seconds, cpu,
        total: Math.max(total, passed + failed), passed, failed, code, signal, output });
    });
  });
}

/**
 * The run's units, longest first: each file alone, but for the small files, which go in
 * batches of batchSize (alone when only one would be in its batch). A batch's estimate is the
 * sum of its files'.
 */
function units(files, durations, batched) {
  const isSmall = (file) => batched && durations[file] !== undefined &&
    durations[file].cpuSeconds < batchCpuSeconds && durations[file].seconds < batchSeconds;
  const small = files.filter(isSmall);
  const list = files.filter((file) => !isSmall(file)).map((file) => [file]);
  if (small.length === 1) list.push(small);
  else {
    const count = Math.ceil(small.length / batchSize);
    for (let index = 0; index < count; index += 1) {
      list.push(small.filter((_, at) => at % count === index));
    }
  }
  const estimate = (unit) =>
    unit.reduce((sum, file) => sum + (durations[file]?.seconds ?? unmeasuredSeconds), 0);
  // Longest first; unmeasured (Infinity - Infinity is NaN) and equal ones by name.
  return list.sort((a, b) => estimate(b) - estimate(a) || (a[0] < b[0] ? -1 : 1));
}

function record(durations, results) {
  const measured = Object.fromEntries(results.map((r) => [r.file,
    { seconds: Number(r.seconds.toFixed(1)), cpuSeconds: Number(r.cpu.toFixed(1)) }]));
  const merged = { ...durations, ...measured };
  const sorted = Object.fromEntries(Object.keys(merged).sort().map((file) => [file, merged[file]]));
  writeFileSync(durationsFile, `${JSON.stringify(sorted, null, 2)}\n`);
}

function report(result) {
  const time = `${result.seconds.toFixed(1)} s (${result.cpu.toFixed(1)} s CPU)`;
  if (result.failed === 0) {
    console.log(`ok    ${result.label}  ${result.passed} tests  ${time}` +
      (result.files.length === 1 ? '' : `: ${result.file}`));
    return;
  }
  const how = result.signal ? `signal ${result.signal}` : `exit ${result.code}`;
  console.log(`FAIL  ${result.file}  ${result.failed} of ${result.total} failed (${how}), ${time}`);
  console.log(result.output.trimEnd().replace(/^/gm, '    '));
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const colour =
    process.stdout.isTTY === true && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb';
  const durations = knownDurations();
  const matching = testFiles(options.pattern);
  const tier = matching.filter((file) => options.full || !isFullTier(file));
  const queue = units(tier, durations, !options.record);
  if (tier.length === 0) {
    console.error(`test/run-files.js: no test file of this tier matches ${options.pattern}` +
      (options.full ? '' : ' (--full adds the full tier)'));
    process.exit(2);
  }
  const started = performance.now();
  const results = [];
  let next = 0;
  async function worker() {
    while (next < queue.length) {
      const files = queue[next];
      next += 1;
      const result = await runFiles(files, colour);
      report(result);
      results.push(result);
      // After every file, so that a run stopped early keeps what it measured.
      if (options.record) record(durations, results);
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.jobs, queue.length) }, worker));
  const wallSeconds = (performance.now() - started) / 1000;

  const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, slowestShown);
  const cpuTotal = results.reduce((sum, r) => sum + r.cpu, 0);
  console.log(`\nSlowest ${slowest.length} test files (${options.jobs} at a time; ` +
    `${wallSeconds.toFixed(1)} s in all, ${cpuTotal.toFixed(1)} s of CPU):`);
  for (const result of slowest) {
    console.log(`  ${result.seconds.toFixed(1).padStart(6)} s  ` +
      `${result.cpu.toFixed(1).padStart(6)} s CPU  ${result.label}`);
  }
  const total = results.reduce((sum, r) => sum + r.total, 0);
  const passed = results.reduce((sum, r) => sum + r.passed, 0);
  const leftToFull = matching.length - tier.length;
  if (leftToFull > 0) {
    console.log(`${leftToFull} files of the full tier not run here (npm run test:full runs them)`);
  }
  const fileCount = results.reduce((sum, r) => sum + r.files.length, 0);
  console.log(`Files: ${fileCount}, tests: ${total}, passed: ${passed}`);
  process.exit(results.every((r) => r.failed === 0) ? 0 : 1);
}

await main();
