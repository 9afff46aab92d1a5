/**
 * `npm run mutants`: the mutation score (issue 10, item 7). Copies the tracked files
 * (`git ls-files`) to a temporary directory with node_modules linked, checks that the
 * unmutated code passes every check the mutations use, then applies each mutation alone and
 * runs `shardkv check MODEL ... --json` through tsx (no build): a violation kills the
 * mutation. Prints one line per mutation (killed or survived, the invariant, distinct states,
 * seconds) and exits 1 when one survives, when the baseline fails, or when an edit's text is
 * not found exactly once (the list no longer matches the code). A script, not a test.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { mutations, type Mutation } from './mutations.js';

interface CheckSummary {
  readonly result: string;
  readonly invariant?: string;
  readonly property?: string;
  readonly distinctStates: number;
  readonly seconds: number;
}

const root = join(import.meta.dirname, '..');
const entry = "import('./cli/main.ts').then(async (m) => { process.exitCode = await m.main(" +
  'process.argv.slice(1)); })';

function copyTrackedFiles(target: string): void {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file.length > 0);
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(root, file), join(target, file));
  }
  symlinkSync(realpathSync(join(root, 'node_modules')), join(target, 'node_modules'), 'dir');
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

/** Every edit must match exactly once before anything runs: a stale list fails loudly. */
function verifyEdits(copy: string): string[] {
  const problems: string[] = [];
  for (const mutation of mutations) {
    const text = readFileSync(join(copy, mutation.file), 'utf8');
    const count = occurrences(text, mutation.find);
    if (count !== 1) problems.push(`${mutation.name}: found ${count} times in ${mutation.file}`);
  }
  return problems;
}

function runCheck(copy: string, check: readonly string[]): CheckSummary {
  const args = ['--import', 'tsx', '--eval', entry, 'check', ...check, '--json', '--quiet'];
  const child = spawnSync(process.execPath, args, { cwd: copy, encoding: 'utf8' });
  const lines = child.stdout.trim().split('\n');
  try {
    return JSON.parse(lines[lines.length - 1]!) as CheckSummary;
  } catch {
    // A mutation that makes the spec throw is killed too: an assertion caught it.
    const reason = child.stderr.trim().split('\n').find((line) => line.includes('Error'));
    return { result: 'crash', invariant: reason ?? 'no output', distinctStates: 0, seconds: 0 };
  }
}

function verdict(summary: CheckSummary): string {
  const what = summary.invariant ?? summary.property ?? '';
  return `${summary.result}${what === '' ? '' : ` ${what}`}`;
}

function checkBaseline(copy: string, chosen: readonly Mutation[]): boolean {
  const checks = [...new Set(chosen.map((mutation) => mutation.check.join(' ')))];
  let passed = true;
  for (const check of checks) {
    const summary = runCheck(copy, check.split(' '));
    const line = `${summary.distinctStates} states, ${summary.seconds.toFixed(1)} s`;
    console.log(`baseline  check ${check}: ${verdict(summary)} (${line})`);
    if (summary.result !== 'ok') passed = false;
  }
  return passed;
}

function runMutation(copy: string, mutation: Mutation): boolean {
  const path = join(copy, mutation.file);
  const original = readFileSync(path, 'utf8');
  writeFileSync(path, original.replace(mutation.find, () => mutation.replace));
  try {
    const summary = runCheck(copy, mutation.check);
    const killed = summary.result === 'violation' || summary.result === 'crash';
    const figures = `${summary.distinctStates} states, ${summary.seconds.toFixed(1)} s`;
    const status = killed ? 'killed  ' : 'SURVIVED';
    console.log(`${status}  ${mutation.name}: ${verdict(summary)} (${figures})`);
    return killed;
  } finally {
    writeFileSync(path, original);
  }
}

/** `npm run mutants -- NAME...` runs only the named mutations; none named: all of them. */
function selected(names: readonly string[]): readonly Mutation[] {
  const unknown = names.filter((name) => !mutations.some((mutation) => mutation.name === name));
  if (unknown.length > 0) throw new Error(`mutants: no mutation named ${unknown.join(', ')}`);
  if (names.length === 0) return mutations;
  return mutations.filter((mutation) => names.includes(mutation.name));
}

function main(): number {
  const chosen = selected(process.argv.slice(2));
  const copy = mkdtempSync(join(tmpdir(), 'shardkv-mutants-'));
  try {
    copyTrackedFiles(copy);
    const problems = verifyEdits(copy);
    if (problems.length > 0) {
      for (const problem of problems) console.error(`mutants: ${problem}`);
      return 1;
    }
    if (!checkBaseline(copy, chosen)) {
      console.error('mutants: the unmutated code fails a check; fix that first');
      return 1;
    }
    let killed = 0;
    for (const mutation of chosen) if (runMutation(copy, mutation)) killed++;
    console.log(`${killed} of ${chosen.length} mutations killed`);
    return killed === chosen.length ? 0 : 1;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

process.exitCode = main();
