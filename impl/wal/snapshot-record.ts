/**
 * A Snapshot record (record.ts, payloads.ts) built piece by piece, for a snapshot prepared in
 * the background (WalStorage.prepareSnapshot): the same bytes as
 * `encodeRecord(RecordType.Snapshot, encodeSnapshot(...))`, but the data arrives as pieces
 * and `pause` runs between pieces, so that a node's timers and I/O run while megabytes are
 * serialised and checksummed (issue 27: a leader busy with a big snapshot still sends its
 * heartbeats). Nothing is copied into one buffer: the pieces are written one after another.
 */
import { assert } from '../../spec/assert.js';
import { ByteWriter } from './bytes.js';
import { crc32cFinish, crc32cStart, crc32cUpdate } from './crc32c.js';
import { recordHeaderBytes, recordPayloadBytesMax, RecordType } from './record.js';

/** Bytes checksummed or serialised between two pauses. */
export const snapshotPieceBytes = 256 * 1024;

export interface SnapshotRecordPieces {
  /** The record, in order: the header and index fields first, then the data. */
  readonly pieces: readonly Uint8Array[];
  readonly bytes: number;
}

export async function snapshotRecordPieces(
  lastIncludedIndex: number,
  lastIncludedTerm: number,
  data: Iterable<Uint8Array>,
  pause: () => Promise<void>,
): Promise<SnapshotRecordPieces> {
  const dataPieces: Uint8Array[] = [];
  let dataBytes = 0;
  let sincePause = 0;
  for (const piece of data) {
    dataPieces.push(piece);
    dataBytes += piece.length;
    sincePause += piece.length;
    if (sincePause >= snapshotPieceBytes) {
      sincePause = 0;
      await pause();
    }
  }
  const payloadBytes = 16 + dataBytes;
  assert(payloadBytes <= recordPayloadBytesMax, `record of ${payloadBytes} bytes`);
  const head = new ByteWriter(recordHeaderBytes + 16).u32(0).u32(payloadBytes)
    .u8(RecordType.Snapshot).u53(lastIncludedIndex).u53(lastIncludedTerm).finish();
  let crc = crc32cUpdate(crc32cStart, head, 4);
  sincePause = 0;
  for (const piece of dataPieces) {
    for (let start = 0; start < piece.length; start += snapshotPieceBytes) {
      const end = Math.min(piece.length, start + snapshotPieceBytes);
      crc = crc32cUpdate(crc, piece, start, end);
      sincePause += end - start;
      if (sincePause >= snapshotPieceBytes) {
        sincePause = 0;
        await pause();
      }
    }
  }
  new DataView(head.buffer, head.byteOffset).setUint32(0, crc32cFinish(crc), true);
  return { pieces: [head, ...dataPieces], bytes: head.length + dataBytes };
}
