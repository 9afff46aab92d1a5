/**
 * Telling a torn write from damage, for the first bad record of the last segment. A torn
 * write is a write that never finished: the crash came before its fsync, so nothing after it
 * was synced either and cutting it loses nothing acknowledged. Damage (a flipped byte, a lost
 * sector) hits bytes that were synced; cutting there would drop acknowledged records silently.
 * etcd's WAL decoder draws the same line: a record that fails its checksum is torn only when
 * part of it was never written (an all-zero sector), otherwise it is a CRC mismatch and the
 * WAL refuses to open.
 *
 * The bad record at `offset` is torn only when all of these hold:
 * - no whole, valid record starts anywhere after it (a valid record after it was written
 *   after it, so the bad one was once whole: damage);
 * - its checksum does not match its own bytes (a matching checksum over a malformed payload
 *   was written that way: damage);
 * - it is cut short (its header claims more bytes than the file has, and the checksum does
 *   not match either when its length is read as "to the end of the file", which would mean
 *   a flipped length field), or what follows its start is unwritten: the file ends in zeros
 *   that begin at its first byte, or begin inside it and run for at least
 *   `unwrittenZeroBytesMin` bytes (no record holds that many zeros in a row).
 */
import {
  checksumMatchesUpTo, claimedRecordEnd, recordFailureAt, recordHeaderBytes,
} from './record.js';

/**
 * The longest run of zero bytes a record can hold is a HardState's 24 (a term's high bytes, a
 * commit index of 0, no vote); a longer run ending the file is space that was never written.
 */
export const unwrittenZeroBytesMin = 32;

export type TailVerdict =
  | { readonly kind: 'torn' }
  | { readonly kind: 'damaged'; readonly why: string };

export function judgeBadRecord(bytes: Uint8Array, offset: number): TailVerdict {
  const next = nextValidRecord(bytes, offset + 1);
  if (next !== null) {
    return damaged(`a valid record follows at offset ${next} (${bytes.length - next} bytes ` +
      'from there to the end): not a torn write');
  }
  const end = claimedRecordEnd(bytes, offset);
  if (end <= bytes.length && checksumMatchesUpTo(bytes, offset, end)) {
    return damaged('its checksum matches: it was written like this');
  }
  const zerosFrom = trailingZerosStart(bytes);
  if (bytes.length - offset < recordHeaderBytes || zerosFrom <= offset) return { kind: 'torn' };
  if (end > bytes.length) {
    return checksumMatchesUpTo(bytes, offset, bytes.length)
      ? damaged('its length field is damaged (the record is whole up to the end of the file)')
      : { kind: 'torn' };
  }
  if (zerosFrom < end && bytes.length - zerosFrom >= unwrittenZeroBytesMin) return { kind: 'torn' };
  return damaged('a whole record that fails its checksum, with nothing unwritten after it');
}

function damaged(why: string): TailVerdict {
  return { kind: 'damaged', why };
}

/** The first offset from `from` where a whole, valid record starts, or null. */
function nextValidRecord(bytes: Uint8Array, from: number): number | null {
  // One candidate per byte; a candidate whose length runs past the end is rejected before
  // its checksum is computed, so this costs little more than one pass over the tail.
  for (let offset = from; offset + recordHeaderBytes <= bytes.length; offset++) {
    if (recordFailureAt(bytes, offset) === null) return offset;
  }
  return null;
}

/** Where the run of zero bytes that ends the file begins (the length when there is none). */
function trailingZerosStart(bytes: Uint8Array): number {
  let start = bytes.length;
  while (start > 0 && bytes[start - 1] === 0) start--;
  return start;
}
