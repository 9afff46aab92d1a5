/**
 * `npm run bench -- lincheck`: check times for the Porcupine corpus and for generated histories,
 * beside Porcupine's own figures on this machine (issue 6). Times are the best of a few runs of
 * the check alone (parsing is shown apart), as Porcupine's are of CheckOperations alone.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateHistory, seededChoose } from '../checker/lincheck/generate.js';
import { parseHistory, type HistoryOperation } from '../checker/lincheck/history.js';
import { lincheckHistory } from '../checker/lincheck/index.js';
import type { BenchSection } from './sections.js';

const corpus = fileURLToPath(new URL('../../corpus/lincheck/', import.meta.url));

interface Case {
  readonly name: string;
  readonly porcupineMs: number;
  readonly repetitions: number;
  history(): { history: HistoryOperation[]; parseMs: number };
}

function corpusCase(file: string, porcupineMs: number): Case {
  return {
    name: file.replace(/^porcupine-|\.jsonl$/g, ''), porcupineMs, repetitions: 10,
    history() {
      const text = readFileSync(corpus + file, 'utf8');
      const started = performance.now();
      return { history: parseHistory(text), parseMs: performance.now() - started };
    },
  };
}

function generatedCase(
  operations: number, clients: number, keys: number, porcupineMs: number, repetitions: number,
): Case {
  return {
    name: `${operations / 1000}k ops/${clients} clients/${keys} key${keys === 1 ? '' : 's'}`,
    porcupineMs, repetitions,
    history: () => ({
      history: generateHistory({ operations, clients, keys }, seededChoose(operations + keys)),
      parseMs: Number.NaN,
    }),
  };
}

const cases: readonly Case[] = [
  corpusCase('porcupine-c01-ok.jsonl', 0.1),
  corpusCase('porcupine-c01-bad.jsonl', 0.1),
  corpusCase('porcupine-c10-ok.jsonl', 0.66),
  corpusCase('porcupine-c10-bad.jsonl', 0.33),
  corpusCase('porcupine-c50-ok.jsonl', 136),
  corpusCase('porcupine-c50-bad.jsonl', 17.8),
  generatedCase(10_000, 10, 10, 13, 5),
  generatedCase(100_000, 10, 100, 114, 3),
  generatedCase(10_000, 10, 1, 3500, 3),
];

export const lincheckBench: BenchSection = {
  name: 'lincheck',
  description: 'linearizability check times (best of N) against Porcupine (Go) on this machine',
  async run() {
    console.log('Wall and CPU times are each the best of N runs: on a shared machine, CPU time is');
    console.log('the steadier figure. ratio = our best wall time / Porcupine\'s.');
    console.log('| history | ops | verdict | parse ms | check ms | check CPU ms | memo entries '
      + '| Porcupine ms | ratio |');
    console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|');
    for (const entry of cases) {
      const { history, parseMs } = entry.history();
      let best = Infinity;
      let bestCpu = Infinity;
      let verdict = '';
      let configurations = 0;
      for (let repetition = 0; repetition < entry.repetitions; repetition++) {
        const cpuBefore = process.cpuUsage();
        const result = lincheckHistory(history, { timeLimitSeconds: 120 });
        const cpu = process.cpuUsage(cpuBefore);
        best = Math.min(best, result.seconds * 1000);
        bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / 1000);
        verdict = result.verdict;
        configurations = result.report.partitions
          .reduce((sum, partition) => sum + (partition.result?.configurations ?? 0), 0);
      }
      console.log(`| ${entry.name} | ${history.length} | ${verdict} | `
        + `${Number.isNaN(parseMs) ? '-' : parseMs.toFixed(1)} | ${best.toFixed(1)} | `
        + `${bestCpu.toFixed(1)} | ${configurations} | `
        + `${entry.porcupineMs} | ${(best / entry.porcupineMs).toFixed(2)} |`);
    }
  },
};
