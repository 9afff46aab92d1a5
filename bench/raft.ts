/**
 * `npm run bench -- raft`: the raft.tla preset at TLC's calibration bounds (3 servers, 1 value,
 * MaxTerm 2, MaxLogLen 1, MaxMsgs 1), distinct and generated states per second on one thread,
 * beside TLC's own figures on this machine (190 s: 12,500 distinct and 148,000 generated
 * states/s), and issue 22's goal for it: at most 9.5 s on one worker (20x TLC), judged on
 * wall time with the user CPU time and the load average beside it (the machine is shared);
 * then the default `raft` model with and without symmetry.
 */
import { loadavg } from 'node:os';
import { breadthFirstSearch } from '../checker/bfs.js';
import { resolveParams } from '../checker/params.js';
import type { SearchResult } from '../checker/search.js';
import { raftDefinition } from '../models/raft/index.js';
import type { BenchSection } from './sections.js';

const tlcSeconds = 190;
const tlcDistinct = 2_379_781;
const tlcGenerated = 28_169_044;
/** Issue 22's goal: the preset on one worker in at most this many seconds (20x TLC's 190). */
const goalSeconds = 9.5;

function line(label: string, result: SearchResult): string {
  const distinctRate = Math.round(result.distinctStates / result.seconds);
  const generatedRate = Math.round(result.statesGenerated / result.seconds);
  const heapMiB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  return (
    `${label}: ${result.result}, ${result.distinctStates} distinct, ` +
    `${result.statesGenerated} generated, ` +
    `depth ${result.depth}, ${result.seconds.toFixed(1)} s, ${distinctRate} distinct/s, ` +
    `${generatedRate} generated/s, heap ${heapMiB} MiB`
  );
}

async function run(): Promise<void> {
  const presetParams = resolveParams(raftDefinition, undefined, {
    preset: 'raft.tla',
    servers: '3',
    values: '1',
    'max-term': '2',
    'max-log': '1',
    'max-msgs': '1',
  });
  const cpuBefore = process.cpuUsage().user;
  const preset = breadthFirstSearch(raftDefinition.create(presetParams, undefined));
  const userSeconds = (process.cpuUsage().user - cpuBefore) / 1e6;
  console.log(line('raft.tla preset (TLC bounds)', preset));
  console.log(
    `  TLC: ${tlcDistinct} distinct, ${tlcGenerated} generated in ${tlcSeconds} s ` +
      `(${Math.round(tlcDistinct / tlcSeconds)} distinct/s, ` +
      `${Math.round(tlcGenerated / tlcSeconds)} generated/s); ` +
      `speed-up ${(tlcSeconds / preset.seconds).toFixed(1)}x, ` +
      `counts ${preset.distinctStates === tlcDistinct ? 'equal' : 'DIFFER'}`,
  );
  const load = loadavg().map((value) => value.toFixed(1)).join(' ');
  console.log(
    `  goal (issue 22): the raft.tla preset on 1 worker in at most ${goalSeconds} s: ` +
      `${preset.seconds.toFixed(1)} s wall, ${userSeconds.toFixed(1)} s user CPU: ` +
      `${preset.seconds <= goalSeconds ? 'met' : 'not met'} (load average ${load})`,
  );
  for (const symmetry of [false, true]) {
    const params = resolveParams(raftDefinition, undefined, symmetry ? { symmetry: 'true' } : {});
    const result = breadthFirstSearch(raftDefinition.create(params, undefined));
    console.log(line(`raft default bounds${symmetry ? ', --symmetry' : ''}`, result));
  }
}

export const raftBench: BenchSection = {
  name: 'raft',
  description: 'raft.tla preset against TLC, and the default raft model',
  run,
};
