/**
 * The WAL record frame, shared by log segments and snapshot files:
 *
 *     offset 0  u32 LE  CRC-32C of every byte from offset 4 to the end of the payload
 *     offset 4  u32 LE  payload length in bytes
 *     offset 8  u8      record type (RecordType)
 *     offset 9  ...     payload
 *
 * The checksum covers the length and the type, so a torn or flipped header is caught like a
 * torn payload. Zeros never pass: a record's type is never 0.
 */
import { assert } from '../../spec/assert.js';
import { crc32c } from './crc32c.js';
import { checksumsSkipped } from './planted-faults.js';

export const recordHeaderBytes = 9;
/** No legitimate record is larger; a longer length field is a corrupt header. */
export const recordPayloadBytesMax = 256 * 2 ** 20;

export enum RecordType {
  Entry = 1,
  HardState = 2,
  Truncate = 3,
  Snapshot = 4,
}

const knownTypes = new Set<number>([1, 2, 3, 4]);

export function encodeRecord(type: RecordType, payload: Uint8Array): Uint8Array {
  assert(payload.length <= recordPayloadBytesMax, `record of ${payload.length} bytes`);
  const record = new Uint8Array(recordHeaderBytes + payload.length);
  const view = new DataView(record.buffer);
  view.setUint32(4, payload.length, true);
  view.setUint8(8, type);
  record.set(payload, recordHeaderBytes);
  view.setUint32(0, crc32c(record, 4), true);
  return record;
}

export interface ScannedRecord {
  readonly offset: number;
  readonly type: RecordType;
  readonly payload: Uint8Array;
}

/** Where and why scanning stopped before the end of the bytes. */
export interface ScanFailure {
  readonly offset: number;
  readonly reason: string;
}

export interface ScanResult {
  readonly records: ScannedRecord[];
  /** Bytes from the start that hold whole, valid records. */
  readonly validBytes: number;
  readonly failure: ScanFailure | null;
}

/** Reads records from the start until the end or the first record that is not whole and valid. */
export function scanRecords(bytes: Uint8Array): ScanResult {
  const records: ScannedRecord[] = [];
  const view = viewOf(bytes);
  let offset = 0;
  // Each iteration consumes at least a header, so the loop is bounded by the byte count.
  while (offset < bytes.length) {
    const failure = checkRecordAt(bytes, view, offset);
    if (failure !== null) {
      return { records, validBytes: offset, failure: { offset, reason: failure } };
    }
    const length = view.getUint32(offset + 4, true);
    const end = offset + recordHeaderBytes + length;
    const type = view.getUint8(offset + 8) as RecordType;
    records.push({ offset, type, payload: bytes.subarray(offset + recordHeaderBytes, end) });
    offset = end;
  }
  return { records, validBytes: offset, failure: null };
}

/** Why the record at `offset` is not whole and valid, or null if it is. */
export function recordFailureAt(bytes: Uint8Array, offset: number): string | null {
  return checkRecordAt(bytes, viewOf(bytes), offset);
}

/** The end the header at `offset` claims (past the bytes when the record is cut short). */
export function claimedRecordEnd(bytes: Uint8Array, offset: number): number {
  if (bytes.length - offset < recordHeaderBytes) return Number.POSITIVE_INFINITY;
  return offset + recordHeaderBytes + viewOf(bytes).getUint32(offset + 4, true);
}

/** Whether the checksum at `offset` matches the bytes up to `end` read as the whole record. */
export function checksumMatchesUpTo(bytes: Uint8Array, offset: number, end: number): boolean {
  if (end - offset < recordHeaderBytes || end > bytes.length) return false;
  const record = bytes.slice(offset, end);
  const view = new DataView(record.buffer);
  const stored = view.getUint32(0, true);
  view.setUint32(4, record.length - recordHeaderBytes, true);
  return crc32c(record, 4) === stored;
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function checkRecordAt(bytes: Uint8Array, view: DataView, offset: number): string | null {
  const available = bytes.length - offset;
  if (available < recordHeaderBytes) return `incomplete header (${available} bytes)`;
  const length = view.getUint32(offset + 4, true);
  if (length > recordPayloadBytesMax) return `record length ${length} exceeds the maximum`;
  if (recordHeaderBytes + length > available) {
    return `incomplete record (${length} payload bytes, ${available - recordHeaderBytes} present)`;
  }
  const end = offset + recordHeaderBytes + length;
  if (!checksumsSkipped() && crc32c(bytes, offset + 4, end) !== view.getUint32(offset, true)) {
    return 'checksum mismatch';
  }
  const type = view.getUint8(offset + 8);
  if (!knownTypes.has(type)) return `unknown record type ${type}`;
  return null;
}
