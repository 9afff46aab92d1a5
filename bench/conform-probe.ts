/**
 * Run by the conform-1m bench in a process of its own, so its peak RSS is conform's alone:
 * conforms the traces in DIR/traces (streamed from the files, as `shardkv conform` reads
 * them) and prints one JSON line with the records, the verdict, the seconds (all, and those
 * of the trace checks before the history's, by wall and CPU), the records the checks across
 * records still held at the end (ConformResult.retained) and the peak RSS (up to the end of
 * the trace checks, and in all: lincheck's search of an undecided history can add gigabytes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { conform } from '../verify/conform/conform.js';
import { fileSource } from '../cli/input.js';
import type { TraceSource } from '../verify/conform/trace-lines.js';

const folder = join(process.argv[2]!, 'traces');
const nodes = new Map<string, TraceSource>();
for (const name of readdirSync(folder)) {
  if (name.endsWith('.jsonl') && name !== 'history.jsonl') {
    nodes.set(name.slice(0, -'.jsonl'.length), fileSource(join(folder, name)));
  }
}
const cpu = process.cpuUsage();
const started = performance.now();
let traceSeconds = 0;
let traceCpuSeconds = 0;
let traceMaxRssMiB = 0;
const result = conform({ nodes, history: readFileSync(join(folder, 'history.jsonl'), 'utf8') },
  (stage) => {
    if (stage !== 'read') return;
    traceSeconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    traceCpuSeconds = (used.user + used.system) / 1e6;
    traceMaxRssMiB = process.resourceUsage().maxRSS / 1024;
  });
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({
  records: result.records,
  verdict: result.divergence === null ? 'conforming' : `divergence (${result.divergence.check})`,
  seconds: (performance.now() - started) / 1000, traceSeconds, traceCpuSeconds,
  retained: result.retained.records, traceMaxRssMiB,
  cpuSeconds: (used.user + used.system) / 1e6, maxRssMiB: process.resourceUsage().maxRSS / 1024,
}));
