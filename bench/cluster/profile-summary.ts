/**
 * Summarises V8 CPU profiles (`bench:cluster --cpu-prof DIR` writes one per node process):
 * self time per function, over the files given, heaviest first, with the share of all
 * samples. Where the time goes, read before changing the hot path.
 *
 *     node dist/bench/cluster/profile-summary.js [--top N] FILE.cpuprofile...
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

function selfTimes(profile: Profile, totals: Map<string, number>): number {
  const names = new Map<number, string>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url === '' ? '' : ` ${basename(url)}:${lineNumber + 1}`;
    names.set(node.id, `${functionName || '(anonymous)'}${file}`);
  }
  let sum = 0;
  profile.samples.forEach((id, index) => {
    const microseconds = profile.timeDeltas[index] ?? 0;
    const name = names.get(id) ?? '?';
    totals.set(name, (totals.get(name) ?? 0) + microseconds);
    sum += microseconds;
  });
  return sum;
}

const argv = process.argv.slice(2);
let top = 40;
const files: string[] = [];
for (let index = 0; index < argv.length; index++) {
  if (argv[index] === '--top') top = Number(argv[++index]);
  else files.push(argv[index]!);
}
if (files.length === 0 || !Number.isInteger(top) || top < 1) {
  process.stderr.write('usage: profile-summary [--top N] FILE.cpuprofile...\n');
  process.exit(2);
}
const totals = new Map<string, number>();
let all = 0;
for (const file of files) all += selfTimes(JSON.parse(readFileSync(file, 'utf8')), totals);
const idle = (totals.get('(idle)') ?? 0);
console.log(`${files.length} profile(s), ${(all / 1e6).toFixed(1)} s sampled, ` +
  `${(idle / 1e6).toFixed(1)} s idle`);
const busy = all - idle;
[...totals.entries()].filter(([name]) => name !== '(idle)')
  .sort((a, b) => b[1] - a[1]).slice(0, top)
  .forEach(([name, microseconds]) => console.log(
    `${(100 * microseconds / busy).toFixed(1).padStart(5)}%  ` +
    `${(microseconds / 1000).toFixed(0).padStart(7)} ms  ${name}`));
