// Fuzz of the decoders that read bytes from outside (issue 21, "Done when"): random bytes,
// truncations and bit flips thrown at the binary frame decoder (impl/node/wire.ts) and at the
// WAL record scanner (impl/wal/record.ts), and the frame codec checked against JSON: every
// frame decodes to the value its JSON (json-maps.ts) holds. Nothing throws; a damaged frame
// either decodes to a frame that round-trips or is null; a damaged WAL yields only the records
// before the damage, never a changed one (CRC-32C catches every single-bit flip).
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BTreeMap } from '../../spec/group/btree-map.js';
import { decodeFrame, encodeFrame, type Frame } from '../../impl/node/wire.js';
import { parseWithMaps, stringifyWithMaps } from '../../impl/node/json-maps.js';
import {
  decodeEntry, decodeHardState, encodeEntry, encodeHardState,
} from '../../impl/wal/payloads.js';
import { encodeRecord, RecordType, scanRecords } from '../../impl/wal/record.js';

const natural = fc.oneof(fc.nat(300), fc.nat({ max: Number.MAX_SAFE_INTEGER }));
const text = fc.string({ unit: 'binary', maxLength: 12 });
const kv = fc.array(fc.tuple(text, text), { maxLength: 3 })
  .map((pairs) => pairs.reduce((map, [key, value]) => map.set(key, value),
    BTreeMap.empty<string, string>()));
const command = fc.oneof(fc.constant(null), fc.record({
  type: fc.constant('client'),
  request: fc.record({ client: fc.nat(9), seq: fc.nat(99), op: fc.constant('put'),
    key: text, value: text }),
}), fc.record({ type: fc.constant('install'), image: fc.record({ kv, sessionFloor: fc.nat(9) }) }));
const message = fc.oneof(
  fc.record({ type: fc.constantFrom('RequestVoteRequest', 'PreVoteRequest'), term: natural,
    lastLogIndex: natural, lastLogTerm: natural }),
  fc.record({ type: fc.constantFrom('RequestVoteResponse', 'PreVoteResponse'), term: natural,
    voteGranted: fc.boolean() }),
  fc.record({ type: fc.constant('AppendEntriesRequest'), term: natural, prevLogIndex: natural,
    prevLogTerm: natural, leaderCommit: natural, readSequence: natural,
    entries: fc.array(fc.record({ term: natural, command }), { maxLength: 4 }) }),
  fc.record({ type: fc.constant('AppendEntriesResponse'), term: natural, success: fc.boolean(),
    matchIndex: natural, conflictTerm: natural, conflictIndex: natural, readSequence: natural }),
  fc.record({ type: fc.constant('InstallSnapshotRequest'), term: natural, snapshot: fc.record({
    lastIncludedIndex: natural, lastIncludedTerm: natural,
    data: fc.record({ kv, applied: natural }),
  }) }),
  fc.record({ type: fc.constant('InstallSnapshotResponse'), term: natural, matchIndex: natural }),
);
const requestBody = fc.oneof(
  fc.constant({ type: 'status' }),
  fc.record({ type: fc.constant('kv'), request: fc.record({ client: fc.nat(9), seq: fc.nat(),
    op: fc.constant('get'), key: text }) }),
);
const replyBody = fc.oneof(
  fc.record({ type: fc.constant('group-result'), result: fc.record({ type: fc.constant('ok') }) }),
  fc.record({ type: fc.constant('wrong-leader'), leader: fc.option(text) }),
  fc.record({ type: fc.constant('refused'), error: text }),
);
const stamp = fc.option(fc.record({ id: text, clock: natural }), { nil: undefined });
const frame: fc.Arbitrary<Frame> = fc.tuple(fc.oneof(
  message.map((value) => ({ kind: 'raft', message: value })),
  fc.record({ kind: fc.constant('request'), id: natural, body: requestBody }),
  fc.record({ kind: fc.constant('reply'), id: natural, body: replyBody }),
), stamp).map(([value, frameStamp]) => ({
  ...value, ...(frameStamp === undefined ? {} : { stamp: frameStamp }),
}) as unknown as Frame);

/** What the frame's JSON holds (key order aside): the value a decoded frame must equal. */
const asJson = (value: unknown) => parseWithMaps(stringifyWithMaps(value));

test('every frame decodes to the value its JSON holds, maps as B+ trees', () => {
  fc.assert(fc.property(frame, (value) => {
    const decoded = decodeFrame(encodeFrame(value));
    assert.equal(asJson(decoded), asJson(value));
    assert.equal(decoded, asJson(value), 'maps come back as B+ trees');
  }), { numRuns: 3000 });
});

/** A copy of `bytes` cut to `length` (at most its own) with the bit `flip` (if any) inverted. */
function damaged(bytes: Uint8Array, length: number, flip: number | null): Uint8Array {
  const copy = bytes.slice(0, Math.min(length, bytes.length));
  if (flip !== null && copy.length > 0) copy[(flip >> 3) % copy.length]! ^= 1 << (flip & 7);
  return copy;
}

/** A damaged frame decodes to null or to a frame that encodes and decodes to itself. */
function decodesSafely(bytes: Uint8Array): void {
  const decoded = decodeFrame(bytes);
  if (decoded !== null) assert.equal(decodeFrame(encodeFrame(decoded)), decoded);
}

test('random bytes never make the frame decoder throw', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 256 }), (bytes) => decodesSafely(bytes)),
    { numRuns: 2000 });
  // Random bytes behind a valid version and kind reach the field decoders.
  fc.assert(fc.property(fc.constantFrom(1, 2, 3), fc.uint8Array({ maxLength: 64 }),
    (kind, rest) => decodesSafely(Uint8Array.of(1, kind, 0, ...rest))), { numRuns: 3000 });
});

test('truncated and bit-flipped frames decode to null or a checked shape, never a throw', () => {
  fc.assert(fc.property(frame, fc.nat(4096), fc.option(fc.nat()), (value, length, flip) => {
    const encoded = encodeFrame(value);
    decodesSafely(damaged(encoded, length, flip));
    if (length < encoded.length && flip === null) {
      assert.is(decodeFrame(encoded.subarray(0, length)), null, 'a cut frame is never whole');
    }
  }), { numRuns: 2000 });
});

const hardState = fc.record({
  currentTerm: natural, votedFor: fc.option(fc.nat(8)), commitIndex: natural,
});
const walRecord = fc.oneof(
  fc.record({ index: natural, term: natural, command: fc.option(fc.uint8Array()) })
    .map((entry) => encodeRecord(RecordType.Entry, encodeEntry(entry))),
  hardState.map((state) => encodeRecord(RecordType.HardState, encodeHardState(state))),
);

test('random bytes never make the WAL scanner throw, and pass no record', () => {
  fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 512 }), (bytes) => {
    const scan = scanRecords(bytes);
    assert.ok(scan.validBytes <= bytes.length);
    // A random record that passes CRC-32C is a 1 in 2^32 event: none within these runs.
    assert.is(scan.records.length, 0);
  }), { numRuns: 2000 });
});

test('a truncated or flipped WAL yields exactly the records before the damage', () => {
  fc.assert(fc.property(fc.array(walRecord, { minLength: 1, maxLength: 6 }), fc.nat(),
    fc.option(fc.nat()), (records, cut, flip) => {
      const whole = Uint8Array.from(records.flatMap((record) => [...record]));
      const bytes = damaged(whole, cut % (whole.length + 1), flip);
      // Records wholly before the flipped byte (or the cut) are intact; the rest must not pass.
      const limit = flip === null || bytes.length === 0 ? bytes.length : (flip >> 3) % bytes.length;
      let expected = 0;
      for (let end = 0; expected < records.length; expected++) {
        end += records[expected]!.length;
        if (end > limit) break;
      }
      const scan = scanRecords(bytes);
      assert.is(scan.records.length, expected);
      scan.records.forEach((scanned, position) => {
        assert.equal(Array.from(scanned.payload), Array.from(records[position]!.subarray(9)));
        // A whole record's payload decodes without a throw (the encoder wrote it).
        if (scanned.type === RecordType.Entry) decodeEntry(scanned.payload);
        else decodeHardState(scanned.payload);
      });
      const validBytes = records.slice(0, expected).reduce((sum, record) => sum + record.length, 0);
      assert.is(scan.validBytes, validBytes);
    }), { numRuns: 1000 });
});

test.run();
