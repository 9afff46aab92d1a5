// The WAL record frame: CRC-32C known answers and what the scanner accepts and refuses.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { crc32c, crc32cFinish, crc32cStart, crc32cUpdate } from '../../impl/wal/crc32c.js';
import {
  decodeEntry, decodeHardState, encodeEntry, encodeHardState,
} from '../../impl/wal/payloads.js';
import { encodeRecord, recordHeaderBytes, RecordType, scanRecords } from '../../impl/wal/record.js';

const ascii = (text: string) => new TextEncoder().encode(text);

test('CRC-32C check values', () => {
  // The CRC catalogue's check value for CRC-32/ISCSI (Castagnoli) over "123456789"; RFC 3720
  // B.4 gives 0x8A9136AA for 32 zero bytes.
  assert.is(crc32c(ascii('123456789')), 0xe3069283);
  assert.is(crc32c(new Uint8Array(32)), 0x8a9136aa);
  assert.is(crc32c(new Uint8Array(0)), 0);
});

/** The definition, one bit at a time: what the sliced tables must agree with. */
function bitwiseCrc32c(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0xffffffff;
  for (let index = start; index < end; index++) {
    crc ^= bytes[index]!;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

test('CRC-32C by slices of 8 equals the bitwise definition, at any offset and in pieces', () => {
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8;
  for (let trial = 0; trial < 500; trial++) {
    const bytes = Uint8Array.from({ length: next() % 70 }, () => next() & 0xff);
    const start = next() % (bytes.length + 1);
    const end = start + next() % (bytes.length - start + 1);
    const expected = bitwiseCrc32c(bytes, start, end);
    assert.is(crc32c(bytes, start, end), expected, `${bytes.length} bytes [${start}, ${end})`);
    const cut = start + next() % (end - start + 1);
    const pieces = crc32cUpdate(crc32cUpdate(crc32cStart, bytes, start, cut), bytes, cut, end);
    assert.is(crc32cFinish(pieces), expected);
  }
});

test('a record is crc, length, type, payload; the scanner reads back every field', () => {
  const payload = encodeEntry({ index: 2 ** 40 + 3, term: 7, command: ascii('put') });
  const record = encodeRecord(RecordType.Entry, payload);
  const view = new DataView(record.buffer);
  assert.is(record.length, recordHeaderBytes + 8 + 8 + 1 + 3);
  assert.is(view.getUint32(4, true), payload.length);
  assert.is(view.getUint8(8), RecordType.Entry);
  assert.is(view.getUint32(0, true), crc32c(record, 4));
  const second = encodeRecord(RecordType.HardState,
    encodeHardState({ currentTerm: 3, votedFor: null, commitIndex: 9 }));
  const scan = scanRecords(Uint8Array.from([...record, ...second]));
  assert.is(scan.failure, null);
  assert.is(scan.validBytes, record.length + second.length);
  const entry = decodeEntry(scan.records[0]!.payload);
  assert.equal({ ...entry, command: [...entry.command!] }, {
    index: 2 ** 40 + 3, term: 7, command: [...ascii('put')],
  });
  const hardState = decodeHardState(scan.records[1]!.payload);
  assert.equal(hardState, { currentTerm: 3, votedFor: null, commitIndex: 9 });
});

test('zeros, a wrong type, a long length and a short file stop the scan where they start', () => {
  const good = encodeRecord(RecordType.Truncate, new Uint8Array(8));
  const cases: [Uint8Array, string][] = [
    [new Uint8Array(20), 'checksum mismatch'],
    [good.subarray(0, 5), 'incomplete header (5 bytes)'],
    [good.subarray(0, good.length - 1), 'incomplete record (8 payload bytes, 7 present)'],
  ];
  const wrongType = encodeRecord(RecordType.Truncate, new Uint8Array(8));
  wrongType[8] = 9;
  new DataView(wrongType.buffer).setUint32(0, crc32c(wrongType, 4), true);
  cases.push([wrongType, 'unknown record type 9']);
  const huge = Uint8Array.from(good);
  new DataView(huge.buffer).setUint32(4, 2 ** 31, true);
  cases.push([huge, `record length ${2 ** 31} exceeds the maximum`]);
  for (const [tail, reason] of cases) {
    const scan = scanRecords(Uint8Array.from([...good, ...tail]));
    assert.is(scan.records.length, 1);
    assert.equal(scan.failure, { offset: good.length, reason });
    assert.is(scan.validBytes, good.length);
  }
});

test.run();
