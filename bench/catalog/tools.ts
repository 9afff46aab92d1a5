/**
 * One cell of the bug x tool matrix: runs the real `shardkv` command (bin/shardkv.js, the
 * built CLI) for one catalogued bug and one tool, and reads its JSON summary. A finding is
 * what the command reported; anything else is null (the caller writes the stated reason).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CatalogBug {
  readonly name: string;
  readonly model: string;
  readonly breaks: readonly string[];
}

export interface CheckFinding {
  readonly invariant: string;
  readonly steps: number;
  readonly states: number;
  readonly seconds: number;
}
export interface SimulateFinding {
  readonly seed: number;
  readonly invariant: string;
  readonly seconds: number;
}
export interface ReplayFinding {
  readonly invariant: string;
  readonly step: number;
}
export interface ConformFinding {
  readonly seed: number;
  readonly divergence: string;
}
export interface MbtFinding {
  readonly summary: string;
  /** Found by the guided walks (`--guided`), the plain walks having passed. */
  readonly guided?: true;
}

/** A tool that did not find the bug: what it said instead. */
export interface Miss {
  readonly missed: string;
}

/** The built CLI of the checkout `npm run catalog` runs in (its working directory). */
const cli = join(process.cwd(), 'bin', 'shardkv.js');
/** A JSON run prints its summary as the last line of stdout (CONTRACT); null without one. */
function lastJsonLine(stdout: string): Record<string, unknown> | null {
  try {
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
  } catch {
    return null;
  }
}

function run(args: readonly string[], timeoutSeconds: number) {
  const started = performance.now();
  const child = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8', timeout: timeoutSeconds * 1000, maxBuffer: 256 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  const json = lastJsonLine(child.stdout);
  const timedOut = child.error !== undefined || child.signal !== null;
  const { status, stdout, stderr } = child;
  return { status, json, seconds, timedOut, stdout, stderr };
}

function withTemporary<T>(use: (folder: string) => T): T {
  const folder = mkdtempSync(join(tmpdir(), 'shardkv-catalog-'));
  try {
    return use(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

export function keptTracePath(bug: CatalogBug): string {
  return join('traces', bug.model, `${bug.name}.trace.json`);
}

/** `shardkv check MODEL --bug NAME` at the catalog's bounds (liveness on where the model has it). */
export function checkCell(bug: CatalogBug, timeoutSeconds: number): CheckFinding | Miss {
  return withTemporary((folder) => {
    const out = join(folder, 'found.trace.json');
    const result = run(['check', bug.model, '--bug', bug.name, '--quiet', '--json',
      '--time-limit', String(timeoutSeconds), '--out', out], timeoutSeconds + 60);
    const json = result.json;
    if (json === null) return { missed: `no summary (${result.timedOut ? 'timed out' : 'failed'})` };
    if (json['result'] !== 'violation') {
      const stopped = json['stoppedBy'] === undefined ? ''
        : ` (stopped by its ${String(json['stoppedBy'])} of ${timeoutSeconds} s after ` +
          `${String(json['distinctStates'])} states)`;
      return { missed: `result ${String(json['result'])}${stopped}` };
    }
    return {
      invariant: String(json['invariant'] ?? json['property']),
      steps: Number(json['traceLength']),
      states: Number(json['distinctStates']),
      seconds: Number(json['seconds']),
    };
  });
}

/** `shardkv simulate --seeds FIRST..LAST --bug NAME`: the first failing seed. */
export function simulateCell(
  bug: CatalogBug,
  seeds: readonly [number, number],
  timeoutSeconds: number,
): SimulateFinding | Miss {
  const result = run(['simulate', '--seeds', `${seeds[0]}..${seeds[1]}`, '--bug', bug.name,
    '--json'], timeoutSeconds);
  if (result.json === null && !result.timedOut) return { missed: 'no summary (failed)' };
  return simulateVerdict(result.json, result.stderr, seeds, `stopped after ${timeoutSeconds} s`);
}

/** What a `simulate --json` run printed: its summary JSON, or its stderr when stopped. */
function simulateVerdict(
  json: Record<string, unknown> | null,
  stderr: string,
  seeds: readonly [number, number],
  stopped: string,
): SimulateFinding | Miss {
  if (json === null) {
    // The search was stopped: say how far it got (its summary lines on stderr, one a seed).
    const passed = stderr.split('\n').filter((line) => / ok; /.test(line)).length;
    return { missed: `seeds ${seeds[0]}..${seeds[0] + passed - 1} pass (${stopped})` };
  }
  if (json['ok'] === true) return { missed: `seeds ${seeds[0]}..${seeds[1]} pass` };
  const runs = json['runs'] as { invariant?: string }[];
  return {
    seed: Number(json['failedSeed']),
    invariant: String(runs.at(-1)?.invariant),
    seconds: Number(json['seconds']),
  };
}

/**
 * A search run before (`--simulate-results DIR`): DIR/NAME.out holds the stdout of
 * `shardkv simulate --seeds A..B --bug NAME --json` and DIR/NAME.err its stderr.
 */
export function savedSimulateCell(
  bug: CatalogBug,
  seeds: readonly [number, number],
  folder: string,
): SimulateFinding | Miss {
  const read = (extension: string) => {
    const file = join(folder, `${bug.name}.${extension}`);
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
  };
  const out = read('out');
  const err = read('err');
  if (out === null && err === null) {
    return { missed: `not searched (no saved search in ${folder})` };
  }
  return simulateVerdict(lastJsonLine(out ?? ''), err ?? '', seeds, 'the search was stopped');
}

/** `shardkv replay --runtime` of the kept trace. */
export function replayCell(bug: CatalogBug, timeoutSeconds: number): ReplayFinding | Miss {
  const trace = keptTracePath(bug);
  if (!existsSync(trace)) return { missed: `no kept trace ${trace}` };
  const result = run(['replay', '--runtime', trace, '--json'], timeoutSeconds);
  const json = result.json;
  if (json === null) return { missed: `no summary (${result.timedOut ? 'timed out' : 'failed'})` };
  if (json['result'] !== 'reproduced') {
    return { missed: String(json['detail'] ?? json['error'] ?? json['result']) };
  }
  return { invariant: String(json['invariant']), step: Number(json['step']) };
}

/** `shardkv simulate --seed N --trace DIR`, then `shardkv conform DIR`: the first divergence. */
export function conformCell(
  bug: CatalogBug,
  seed: number,
  timeoutSeconds: number,
): ConformFinding | Miss {
  return withTemporary((folder) => {
    run(['simulate', '--seed', String(seed), '--bug', bug.name, '--trace', folder, '--json'],
      timeoutSeconds);
    const result = run(['conform', folder, '--json'], timeoutSeconds);
    const json = result.json;
    if (json === null) return { missed: `no summary (${result.timedOut ? 'timed out' : 'failed'})` };
    if (json['ok'] === true) return { missed: `the traced seed ${seed} conforms` };
    return { seed, divergence: String(json['error'] ?? json['divergence']) };
  });
}

/**
 * The walks mbt takes for a bug: raft's steps are cheap (a few hundred thousand a minute), so
 * its bugs get 1,000 walks of depth 40, and 3,000 guided walks (`guided`: snapshot-rollback's
 * first is walk 2,460); migration and controller steps commit through a controller group, and
 * their bugs get 200 walks of mbt's default depth 30 (accept-stale-epoch's first is guided
 * walk 166), plain or guided.
 */
export function mbtArguments(bug: Pick<CatalogBug, 'model' | 'name'>, guided = false): string[] {
  const raftWalks = guided ? '3000' : '1000';
  const walks = bug.model === 'raft' ? ['--walks', raftWalks, '--depth', '40']
    : ['--walks', '200'];
  return ['mbt', bug.model, '--bug', bug.name, ...walks, ...(guided ? ['--guided'] : [])];
}

/**
 * `shardkv mbt MODEL --bug NAME --json` at the catalog's walks: the plain walks, and where
 * they pass, the guided walks.
 */
export function mbtCell(bug: CatalogBug, timeoutSeconds: number): MbtFinding | Miss {
  const plain = mbtRun(bug, false, timeoutSeconds);
  if (!('passed' in plain)) return plain;
  const guided = mbtRun(bug, true, timeoutSeconds);
  if (!('passed' in guided)) return guided;
  return { missed: `not found in ${plain.passed} walks nor in ${guided.passed} guided walks` };
}

function mbtRun(bug: CatalogBug, guided: boolean, timeoutSeconds: number):
  MbtFinding | Miss | { passed: string } {
  const directory = mkdtempSync(join(tmpdir(), 'shardkv-catalog-mbt-'));
  const result = run([...mbtArguments(bug, guided), '--out', join(directory, 'found.trace.json'),
    '--json'], timeoutSeconds);
  rmSync(directory, { recursive: true, force: true });
  const json = result.json;
  if (json === null) return { missed: `no summary (${result.timedOut ? 'timed out' : 'failed'})` };
  if (json['ok'] === true) return { passed: `${json['schedules']} (${json['steps']} steps)` };
  // A divergence writes a trace; an error without one (a usage or internal error) found nothing.
  if (json['trace'] === undefined) return { missed: String(json['error'] ?? 'failed') };
  const summary = String(json['error'] ?? json['invariant'] ?? 'found');
  return guided ? { summary, guided } : { summary };
}

export function isMiss(cell: object): cell is Miss {
  return 'missed' in cell;
}
