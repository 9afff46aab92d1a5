/**
 * `npm run bench -- codec`: the binary frames of impl/node/wire.ts against the JSON of the same
 * frames (json-maps.ts, the frames' encoding before issue 21 item 2, here without the cached
 * command texts the old encoder used for appends), per frame kind: bytes and CPU nanoseconds
 * per encode and per decode, the best of a few rounds.
 */
import { decodeFrame, encodeFrame, type Frame } from '../impl/node/wire.js';
import {
  decodeText, encodeText, parseWithMaps, stringifyWithMaps,
} from '../impl/node/json-maps.js';
import type { BenchSection } from './sections.js';

const stamp = { id: 'g100-1:3:12345', clock: 98_765 };

function put(seq: number) {
  return {
    type: 'client',
    request: { client: 17, seq, op: 'put' as const, key: `key-${seq}`, value: 'x'.repeat(64) },
  };
}

function append(count: number): Frame {
  const entries = Array.from({ length: count }, (_, seq) => ({ term: 5, command: put(seq) }));
  const message = {
    type: 'AppendEntriesRequest', term: 5, prevLogIndex: 12_345, prevLogTerm: 5, entries,
    leaderCommit: 12_340, readSequence: 0,
  } as const;
  return { kind: 'raft', message, stamp };
}

const frames: Readonly<Record<string, Frame>> = {
  'heartbeat': append(0),
  'append, 1 put of 64 B': append(1),
  'append, 8 puts of 64 B': append(8),
  'append response': {
    kind: 'raft', stamp, message: {
      type: 'AppendEntriesResponse', term: 5, success: true, matchIndex: 12_346,
      conflictTerm: 0, conflictIndex: 0, readSequence: 0,
    },
  },
  'put request': { kind: 'request', id: 77, body: { type: 'kv', request: put(1).request } },
  'put reply': { kind: 'reply', id: 77, body: { type: 'group-result', result: { type: 'ok' } } },
};

const calls = 100_000;
const rounds = 3;

/** The least CPU nanoseconds per call over the rounds. */
function cpuNanoseconds(work: () => unknown): number {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    for (let call = 0; call < calls; call++) work();
    const used = process.cpuUsage(before);
    best = Math.min(best, ((used.user + used.system) * 1000) / calls);
  }
  return best;
}

export const codecBench: BenchSection = {
  name: 'codec',
  description: 'binary frames against the JSON of the same frames: bytes, CPU ns per call',
  async run() {
    console.log('| frame | JSON bytes | binary bytes | encode ns JSON / binary | ' +
      'decode ns JSON / binary |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [name, frame] of Object.entries(frames)) {
      const json = encodeText(stringifyWithMaps(frame));
      const binary = encodeFrame(frame);
      const encodeJson = cpuNanoseconds(() => encodeText(stringifyWithMaps(frame)));
      const encodeBinary = cpuNanoseconds(() => encodeFrame(frame));
      const decodeJson = cpuNanoseconds(() => parseWithMaps(decodeText(json)));
      const decodeBinary = cpuNanoseconds(() => decodeFrame(binary));
      console.log(`| ${name} | ${json.length} | ${binary.length} | ` +
        `${encodeJson.toFixed(0)} / ${encodeBinary.toFixed(0)} | ` +
        `${decodeJson.toFixed(0)} / ${decodeBinary.toFixed(0)} |`);
    }
  },
};
