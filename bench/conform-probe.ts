/**
 * Run by the conform-1m bench in a process of its own, so its peak RSS is conform's alone:
 * conforms the traces in DIR/traces as `shardkv conform` does (streamed from the files, on
 * the threads it would choose; `conform-probe DIR THREADS` sets their number, 0 for none)
 * and prints one JSON line with the records, the verdict, the seconds (all, and those
 * of the trace checks before the history's, by wall and CPU), the records the checks across
 * records still held at the end (ConformResult.retained) and the peak RSS (up to the end of
 * the trace checks, and in all: lincheck's search of an undecided history can add gigabytes).
 */
import { readFileSync } from 'node:fs';
import { conform } from '../verify/conform/conform.js';
import { conformThreads, traceInput } from '../cli/conform.js';

/**
 * This thread's CPU seconds (Linux: /proc/thread-self/stat, in ticks of 1/100 s), null
 * elsewhere: with threads, how much of the work stayed on the main thread.
 */
function threadCpuSeconds(): number | null {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

const input = traceInput(process.argv[2]!);
const threads = conformThreads(input.paths,
  process.argv[3] === undefined ? undefined : Number(process.argv[3]));
const cpu = process.cpuUsage();
const started = performance.now();
let traceSeconds = 0;
let traceCpuSeconds = 0;
let traceMaxRssMiB = 0;
let mainCpuSeconds: number | null = null;
const result = conform(input, (stage) => {
    if (stage !== 'read') return;
    traceSeconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    traceCpuSeconds = (used.user + used.system) / 1e6;
    traceMaxRssMiB = process.resourceUsage().maxRSS / 1024;
    mainCpuSeconds = threadCpuSeconds();
  }, threads);
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({
  records: result.records, threads: threads?.count ?? 0,
  verdict: result.divergence === null ? 'conforming' : `divergence (${result.divergence.check})`,
  seconds: (performance.now() - started) / 1000, traceSeconds, traceCpuSeconds, mainCpuSeconds,
  retained: result.retained.records, traceMaxRssMiB,
  cpuSeconds: (used.user + used.system) / 1e6, maxRssMiB: process.resourceUsage().maxRSS / 1024,
}));
