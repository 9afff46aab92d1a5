/**
 * `npm run bench -- codec`: the binary value codec (impl/codec/value-codec.ts) against the
 * JSON one (node/json-maps.ts) on three shapes the protocol sends: an AppendEntries of ten
 * 100-byte puts, an AppendEntries response, and a group state of 1000 keys in an ordered map.
 * Microseconds per encode and per decode, and bytes; one run, so compare within it.
 */
import { decodeValue, encodeValue } from '../impl/codec/value-codec.js';
import { encodeText, mapJsonCodec, stringifyWithMaps } from '../impl/node/json-maps.js';
import { BTreeMap } from '../spec/group/btree-map.js';
import type { BenchSection } from './sections.js';

const put = (client: number) => ({ type: 'client', request: {
  client: `c${client}`, seq: 100 + client, op: 'put', key: `key-${client}`, value: 'x'.repeat(100),
} });

const appendEntries = { kind: 'raft', stamp: { id: 'g100-0:3:991', clock: 12345 }, message: {
  type: 'AppendEntriesRequest', term: 7, prevLogIndex: 1200, prevLogTerm: 7, leaderCommit: 1199,
  readSequence: 40, entries: Array.from({ length: 10 }, (_, client) => ({
    term: 7, command: put(client) })),
} };

const appendResponse = { kind: 'raft', message: { type: 'AppendEntriesResponse', term: 7,
  success: true, matchIndex: 1210, conflictTerm: 0, conflictIndex: 0, readSequence: 40 } };

function groupState(keys: number): unknown {
  let kv = BTreeMap.empty<string, string>();
  for (let key = 0; key < keys; key++) {
    kv = kv.set(`key-${String(key).padStart(4, '0')}`, `value-${key}`.repeat(3));
  }
  return { kv, dedup: { c1: { seq: 3, result: { type: 'ok' } } }, config: 4 };
}

/** Microseconds per call, after a tenth as many calls to warm up. */
function microseconds(calls: number, call: () => unknown): number {
  for (let warm = 0; warm < calls / 10; warm++) call();
  const started = performance.now();
  for (let count = 0; count < calls; count++) call();
  return ((performance.now() - started) / calls) * 1000;
}

const json = mapJsonCodec<unknown>();
// Not json.encode: it caches the bytes per object, which would time a WeakMap lookup.
const encodeJson = (value: unknown) => encodeText(stringifyWithMaps(value));

export const codecBench: BenchSection = {
  name: 'codec',
  description: 'binary value codec against JSON: us per encode/decode, bytes',
  optIn: true,
  async run() {
    const shapes = [
      ['append of 10 puts', appendEntries, 20_000],
      ['append response', appendResponse, 100_000],
      ['1000-key map', groupState(1000), 300],
    ] as const;
    for (const [name, value, calls] of shapes) {
      const jsonBytes = encodeJson(value);
      const binaryBytes = encodeValue(value);
      const us = (call: () => unknown) => microseconds(calls, call).toFixed(2).padStart(8);
      console.log(`${name.padEnd(18)} bytes json ${jsonBytes.length}, ` +
        `binary ${binaryBytes.length}; encode json ${us(() => encodeJson(value))} us, ` +
        `binary ${us(() => encodeValue(value))} us; ` +
        `decode json ${us(() => json.decode(jsonBytes))} us, ` +
        `binary ${us(() => decodeValue(binaryBytes))} us`);
    }
    await Promise.resolve();
  },
};
