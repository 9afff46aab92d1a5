// Fuzz of the decoders that read bytes from outside (issue 21, "Done when"): random bytes,
// truncations and bit flips thrown at the frame decoder (impl/node/wire.ts) and at the WAL
// record scanner (impl/wal/record.ts). Nothing throws; a frame either decodes to a shape the
// receiver checks (a Raft message passes isRaftMessage) or is null; a damaged WAL yields only
// the records before the damage, never a changed one (CRC-32C catches every single-bit flip).
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeFrame, encodeFrame, type Frame } from '../../impl/node/wire.js';
import { isRaftMessage } from '../../impl/node/wire-raft.js';
import {
  decodeEntry, decodeHardState, encodeEntry, encodeHardState,
} from '../../impl/wal/payloads.js';
import { encodeRecord, RecordType, scanRecords } from '../../impl/wal/record.js';

const natural = fc.nat({ max: 2 ** 40 });
const command = fc.oneof(fc.constant(null), fc.record({
  type: fc.constant('client'),
  request: fc.record({ client: fc.nat(9), seq: fc.nat(99), op: fc.constant('put'),
    key: fc.string(), value: fc.string() }),
}));
const appendEntries = fc.record({
  type: fc.constant('AppendEntriesRequest'), term: natural, prevLogIndex: natural,
  prevLogTerm: natural, leaderCommit: natural, readSequence: natural,
  entries: fc.array(fc.record({ term: natural, command }), { maxLength: 4 }),
});
const vote = fc.record({
  type: fc.constant('RequestVoteRequest'), term: natural, lastLogIndex: natural,
  lastLogTerm: natural,
});
const frame: fc.Arbitrary<Frame> = fc.oneof(
  fc.oneof(appendEntries, vote).map((message) => ({ kind: 'raft', message }) as unknown as Frame),
  fc.record({ kind: fc.constant('request'), id: fc.nat(), body: fc.constant({ type: 'status' }) })
    .map((value) => value as Frame),
);

/** A copy of `bytes` cut to `length` (at most its own) with the bit `flip` (if any) inverted. */
function damaged(bytes: Uint8Array, length: number, flip: number | null): Uint8Array {
  const copy = bytes.slice(0, Math.min(length, bytes.length));
  if (flip !== null && copy.length > 0) copy[(flip >> 3) % copy.length]! ^= 1 << (flip & 7);
  return copy;
}

function decodesSafely(bytes: Uint8Array): void {
  const decoded = decodeFrame(bytes);
  if (decoded?.kind === 'raft') assert.ok(isRaftMessage(decoded.message));
}

test('random bytes never make the frame decoder throw', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 256 }), (bytes) => decodesSafely(bytes)),
    { numRuns: 2000 });
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
