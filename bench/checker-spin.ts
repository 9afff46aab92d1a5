/**
 * `npm run bench -- spin`: our BFS on TwoPhase beside SPIN's (issue 11, point 10). The
 * Promela model (checker-promela.ts) is compiled in a temporary directory as the issue
 * measured it (`spin -a`, `gcc -O2 -DSAFETY`, `pan -E`), and both run in this one session,
 * each in a fresh process, so the ratios compare like with like on a shared machine. Without
 * `spin` or a C compiler the section says so and measures only ours.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { twoPhasePromela } from './checker-promela.js';
import { measureInProcess } from './checker.js';
import type { BenchSection } from './sections.js';

const resourceManagerCounts = [8, 9];

interface SpinRun {
  readonly states: number;
  readonly transitions: number;
  readonly seconds: number;
}

/** pan prints large counts in floating point (1.235584e+08): equal to its 7 digits. */
function closeTo(printed: number, exact: number): boolean {
  return Math.abs(printed - exact) <= exact * 1e-6;
}

function present(command: string, versionFlag: string): boolean {
  const result = spawnSync(command, [versionFlag], { encoding: 'utf8' });
  return result.error === undefined;
}

function runSpin(directory: string, resourceManagers: number): SpinRun {
  writeFileSync(join(directory, 'twophase.pml'), twoPhasePromela(resourceManagers));
  const steps: [string, string[]][] = [
    ['spin', ['-a', 'twophase.pml']],
    ['gcc', ['-O2', '-DSAFETY', '-o', 'pan', 'pan.c']],
  ];
  for (const [command, argv] of steps) {
    const result = spawnSync(command, argv, { cwd: directory, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  }
  const started = performance.now();
  const pan = spawnSync('./pan', ['-E', '-m1000000'], {
    cwd: directory,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const seconds = (performance.now() - started) / 1000;
  if (pan.status !== 0) throw new Error(`pan failed: ${pan.stdout}${pan.stderr}`);
  const figure = (pattern: RegExp) => Number(pattern.exec(pan.stdout)?.[1] ?? NaN);
  if (!/errors: 0/.test(pan.stdout)) throw new Error(`pan found an error: ${pan.stdout}`);
  return {
    states: figure(/([\d.e+]+) states, stored/),
    transitions: figure(/([\d.e+]+) transitions/),
    seconds,
  };
}

async function run(): Promise<void> {
  const spin = present('spin', '-V');
  const gcc = present('gcc', '--version');
  if (!spin || !gcc) {
    const missing = [spin ? [] : ['spin'], gcc ? [] : ['gcc']].flat().join(' and ');
    console.log(`${missing} not found: SPIN's figures skipped (apt-get install spin gcc)`);
  }
  const directory = mkdtempSync(join(tmpdir(), 'shardkv-spin-'));
  try {
    for (const rms of resourceManagerCounts) {
      const one = measureInProcess('ours', rms, 1);
      const two = measureInProcess('ours', rms, 2);
      let line =
        `twophase rms=${rms}: ours ${one.distinct} states, ${one.generated} generated: ` +
        `${one.seconds.toFixed(2)} s on 1 worker, ${two.seconds.toFixed(2)} s on 2`;
      if (spin && gcc) {
        const pan = runSpin(directory, rms);
        const same = pan.states === one.distinct && closeTo(pan.transitions, one.generated);
        line +=
          `; SPIN ${pan.states} states, ${pan.transitions} transitions ` +
          `(${same ? 'the same' : 'DIFFERENT'}): ${pan.seconds.toFixed(2)} s wall; ` +
          `ours/SPIN ${(one.seconds / pan.seconds).toFixed(2)} (1 worker), ` +
          `${(two.seconds / pan.seconds).toFixed(2)} (2 workers)`;
      }
      console.log(line);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export const spinBench: BenchSection = {
  name: 'spin',
  description: 'TwoPhase (8 and 9 RMs) against SPIN 6 (pan -E, gcc -O2 -DSAFETY) when present',
  run,
};
