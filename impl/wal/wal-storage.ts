/**
 * Storage (io/storage.ts) as a segmented write-ahead log plus a snapshot file, in one node
 * directory, over a FileSystem (the real disk or the simulated one: the same code either way).
 *
 * Segments `wal-<sequence>.log` hold records (record.ts, payloads.ts) in call order. A call
 * encodes its record at once and buffers it; `sync()` writes the buffer and fsyncs, once per
 * segment touched (group commit). A new segment starts when the current one holds
 * `segmentBytes` or more, and begins with the current hard state, so that deleting older
 * segments never loses it; a sealed segment is fsynced before the next one gets a byte, so only
 * the last segment can ever have a torn tail. A snapshot is written atomically
 * (snapshot-file.ts) in its place in the call order; once it is durable, the oldest segments
 * that hold only entries up to its index are deleted.
 *
 * A snapshot may also be prepared ahead (prepareSnapshot): serialised piece by piece with
 * pauses, written and fsynced under a name of its own while the node goes on, so that the
 * saveSnapshot call that takes it only renames the file (issue 27: a node busy with a
 * megabyte snapshot still answers its timers). Taking it is the same atomic replacement in
 * the same place in the call order; a prepared snapshot nobody takes is removed.
 *
 * On load a bad record in the last segment is a torn tail: the file is truncated before it and
 * the repair is reported. A bad record in a sealed segment is corruption: an error that names
 * the file and the offset.
 */
import { assert } from '../../spec/assert.js';
import { jsonCodec, type Codec } from '../io/codec.js';
import type { Entry, HardState, Snapshot } from '../../spec/raft/types.js';
import type { LoadedState, Storage, StorageSizes } from '../io/storage.js';
import { concatenateBytes } from './bytes.js';
import { describeRecovery, type RecoveryEvent } from './errors.js';
import { joinPath, type FileHandle, type FileSystem } from './file-system.js';
import {
  encodeEntry, encodeHardState, encodeSnapshot, encodeTruncate,
} from './payloads.js';
import { encodeRecord, RecordType } from './record.js';
import {
  preparedSnapshotName, takePreparedSnapshot, writePreparedSnapshot, writeSnapshotFile,
} from './snapshot-file.js';
import { snapshotRecordPieces } from './snapshot-record.js';
import { loadWal } from './wal-load.js';
import { segmentName, type Segment } from './segment.js';

/** A snapshot codec may also hand its bytes over in pieces (for prepareSnapshot). */
export interface SnapshotCodec<S> extends Codec<S> {
  encodePieces?(value: S): Iterable<Uint8Array>;
}

/** A snapshot written and fsynced ahead under its own name, not yet taken. */
interface PreparedSnapshot<S> {
  readonly lastIncludedIndex: number;
  readonly lastIncludedTerm: number;
  readonly data: S;
  readonly name: string;
  readonly bytes: number;
}

export interface WalStorageOptions<C, S> {
  readonly fileSystem: FileSystem;
  /** The node's directory; created if missing. */
  readonly directory: string;
  readonly commandCodec?: Codec<C>;
  readonly snapshotCodec?: SnapshotCodec<S>;
  /** A segment is sealed once it holds this many bytes (default 4 MiB). */
  readonly segmentBytes?: number;
  /** Told about every repair load() makes (default: a line on stderr). */
  readonly onRecovery?: (event: RecoveryEvent) => void;
}

export const segmentBytesDefault = 4 * 2 ** 20;

type PendingOperation =
  | {
      readonly kind: 'write';
      readonly segment: Segment;
      readonly chunks: Uint8Array[];
      hardStates: number;
    }
  | { readonly kind: 'snapshot'; readonly record: Uint8Array; readonly lastIncludedIndex: number }
  | { readonly kind: 'take-prepared'; readonly name: string; readonly lastIncludedIndex: number }
  | { readonly kind: 'remove-prepared'; readonly name: string };

export class WalStorage<C, S> implements Storage<C, S> {
  private readonly fileSystem: FileSystem;
  private readonly directory: string;
  private readonly commandCodec: Codec<C>;
  private readonly snapshotCodec: SnapshotCodec<S>;
  private readonly segmentBytes: number;
  private readonly onRecovery: (event: RecoveryEvent) => void;

  private phase: 'new' | 'loading' | 'open' | 'closed' = 'new';
  private segments: Segment[] = [];
  private logBytes = 0;
  private snapshotBytes = 0;
  /** The index of the last entry of the log as called so far, or the snapshot's if later. */
  private lastIndex = 0;
  private snapshotIndex = 0;
  private durableSnapshotIndex = 0;
  private hardState: HardState | null = null;
  private pending: PendingOperation[] = [];
  private syncChain: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  /** Prepared snapshots not taken yet, by index; at most one per index. */
  private readonly prepared = new Map<number, PreparedSnapshot<S>>();
  /** The names of prepared snapshots being written (not in `prepared` until durable). */
  private readonly writingPrepared = new Set<string>();

  constructor(options: WalStorageOptions<C, S>) {
    this.fileSystem = options.fileSystem;
    this.directory = options.directory;
    this.commandCodec = options.commandCodec ?? jsonCodec<C>();
    this.snapshotCodec = options.snapshotCodec ?? jsonCodec<S>();
    this.segmentBytes = options.segmentBytes ?? segmentBytesDefault;
    this.onRecovery = options.onRecovery ?? ((event) => console.error(describeRecovery(event)));
    assert(this.segmentBytes >= 1, `segmentBytes must be positive: ${this.segmentBytes}`);
  }

  async load(): Promise<LoadedState<C, S>> {
    assert(this.phase === 'new', 'load() is called once, first');
    this.phase = 'loading';
    const loaded = await loadWal(this.fileSystem, this.directory, this.onRecovery);
    this.segments = loaded.segments;
    this.logBytes = loaded.segments.reduce((sum, segment) => sum + segment.bytes, 0);
    this.hardState = loaded.hardState;
    const snapshotIndex = loaded.snapshot?.lastIncludedIndex ?? 0;
    this.snapshotIndex = snapshotIndex;
    this.durableSnapshotIndex = snapshotIndex;
    this.snapshotBytes = loaded.snapshotBytes;
    this.lastIndex = snapshotIndex + loaded.entries.length;
    // A crash can leave the newest segment without the hard state copy it began with; write it
    // again so that older segments can go once it is synced.
    const last = this.segments.at(-1);
    if (this.hardState !== null && last !== undefined && last.hardStatesDurable === 0) {
      const record = encodeRecord(RecordType.HardState, encodeHardState(this.hardState));
      this.buffer(last, record, true);
    }
    await this.removeCompactedSegments();
    this.phase = 'open';
    return {
      hardState: loaded.hardState ?? { currentTerm: 0, votedFor: null, commitIndex: 0 },
      snapshot: loaded.snapshot === null ? null : {
        lastIncludedIndex: loaded.snapshot.lastIncludedIndex,
        lastIncludedTerm: loaded.snapshot.lastIncludedTerm,
        data: this.snapshotCodec.decode(loaded.snapshot.data),
      },
      entries: loaded.entries.map((entry) => ({
        term: entry.term,
        command: entry.command === null ? null : this.commandCodec.decode(entry.command),
      })),
      firstIndex: snapshotIndex + 1,
    };
  }

  saveHardState(hardState: HardState): void {
    this.assertWritable();
    const previous = this.hardState;
    if (previous !== null && previous.currentTerm === hardState.currentTerm &&
      previous.votedFor === hardState.votedFor && previous.commitIndex === hardState.commitIndex) {
      return;
    }
    this.hardState = { ...hardState };
    const record = encodeRecord(RecordType.HardState, encodeHardState(hardState));
    this.buffer(this.currentSegment(), record, true);
  }

  appendEntries(fromIndex: number, entries: readonly Entry<C>[]): void {
    this.assertWritable();
    assert(Number.isSafeInteger(fromIndex), `fromIndex ${fromIndex}`);
    assert(fromIndex > this.snapshotIndex, `fromIndex ${fromIndex} is inside the snapshot ` +
      `(up to ${this.snapshotIndex})`);
    assert(fromIndex <= this.lastIndex + 1, `fromIndex ${fromIndex} leaves a gap after ` +
      `${this.lastIndex}`);
    if (entries.length === 0) {
      if (fromIndex <= this.lastIndex) {
        this.writeRecord(encodeRecord(RecordType.Truncate, encodeTruncate(fromIndex)), 0);
        this.lastIndex = fromIndex - 1;
      }
      return;
    }
    entries.forEach((entry, offset) => {
      const index = fromIndex + offset;
      const command = entry.command === null ? null : this.commandCodec.encode(entry.command);
      const payload = encodeEntry({ index, term: entry.term, command });
      this.writeRecord(encodeRecord(RecordType.Entry, payload), index);
    });
    this.lastIndex = fromIndex + entries.length - 1;
  }

  /**
   * Writes `snapshot` durably under a name of its own, pausing between pieces of the work
   * (`pause`: let the node's timers and I/O run), so that a later saveSnapshot of the same
   * snapshot (same index, term and data object) only renames it. Resolves once it is durable
   * (or was overtaken by a snapshot at its index or later: then it is removed, never taken).
   * Not part of the call order: it may run while syncs run.
   */
  async prepareSnapshot(snapshot: Snapshot<S>, pause: () => Promise<void>): Promise<void> {
    this.assertWritable();
    const { lastIncludedIndex, lastIncludedTerm, data } = snapshot;
    if (lastIncludedIndex <= this.snapshotIndex) return;
    const pieces = this.snapshotCodec.encodePieces?.(data) ?? [this.snapshotCodec.encode(data)];
    const record = await snapshotRecordPieces(lastIncludedIndex, lastIncludedTerm, pieces, pause);
    const name = preparedSnapshotName(lastIncludedIndex);
    if (this.phase !== 'open' || lastIncludedIndex <= this.snapshotIndex ||
      this.writingPrepared.has(name) || this.prepared.has(lastIncludedIndex)) return;
    this.writingPrepared.add(name);
    try {
      await writePreparedSnapshot(this.fileSystem, this.directory, name, record.pieces);
    } catch (error) {
      this.failure ??= error;
      throw error;
    } finally {
      this.writingPrepared.delete(name);
    }
    if (this.phase !== 'open') return;
    // Overtaken while it was written: never taken. (A leftover is removed by load() too.)
    if (lastIncludedIndex <= this.snapshotIndex) {
      this.removePrepared(name);
      return;
    }
    this.prepared.set(lastIncludedIndex, {
      lastIncludedIndex, lastIncludedTerm, data, name, bytes: record.bytes,
    });
  }

  saveSnapshot(snapshot: Snapshot<S>): void {
    this.assertWritable();
    const { lastIncludedIndex, lastIncludedTerm } = snapshot;
    assert(lastIncludedIndex >= this.snapshotIndex, `snapshot at ${lastIncludedIndex} is older ` +
      `than the one at ${this.snapshotIndex}`);
    const prepared = this.prepared.get(lastIncludedIndex);
    this.discardPrepared(lastIncludedIndex);
    if (prepared !== undefined && prepared.lastIncludedTerm === lastIncludedTerm &&
      prepared.data === snapshot.data) {
      this.pending.push({ kind: 'take-prepared', name: prepared.name, lastIncludedIndex });
      this.snapshotBytes = prepared.bytes;
    } else {
      if (prepared !== undefined) this.removePrepared(prepared.name);
      const data = this.snapshotCodec.encode(snapshot.data);
      const payload = encodeSnapshot({ lastIncludedIndex, lastIncludedTerm, data });
      const record = encodeRecord(RecordType.Snapshot, payload);
      this.pending.push({ kind: 'snapshot', record, lastIncludedIndex });
      this.snapshotBytes = record.length;
    }
    this.snapshotIndex = lastIncludedIndex;
    this.lastIndex = Math.max(this.lastIndex, lastIncludedIndex);
    // Seal the current segment so that it can be deleted once the snapshot covers it.
    const current = this.segments.at(-1);
    if (current !== undefined && current.bytes > 0) this.startSegment();
  }

  sync(blocking = false): Promise<void> {
    assert(this.phase === 'open', `sync() on a ${this.phase} storage`);
    const run = this.syncChain.then(() => this.flush(blocking));
    this.syncChain = run.catch(() => undefined);
    return run;
  }

  sizes(): StorageSizes {
    return { logBytes: this.logBytes, snapshotBytes: this.snapshotBytes };
  }

  async close(): Promise<void> {
    if (this.phase === 'closed') return;
    if (this.phase === 'open') await this.sync();
    this.phase = 'closed';
    for (const segment of this.segments) {
      await segment.handle?.close();
      segment.handle = null;
    }
  }

  /**
   * Forgets the durable prepared snapshots a snapshot at `index` overtakes (its own is the
   * caller's); their files are removed in the call order.
   */
  private discardPrepared(index: number): void {
    for (const [preparedIndex, prepared] of this.prepared) {
      if (preparedIndex > index) continue;
      this.prepared.delete(preparedIndex);
      if (preparedIndex !== index) this.removePrepared(prepared.name);
    }
  }

  /** A prepared snapshot's file goes with the next sync (load() removes a leftover anyway). */
  private removePrepared(name: string): void {
    this.pending.push({ kind: 'remove-prepared', name });
  }

  private assertWritable(): void {
    assert(this.phase === 'open', `write to a ${this.phase} storage (load() first)`);
    if (this.failure !== null) throw this.failure;
  }

  /** Buffers a log record at the end of the current segment, starting one when it is full. */
  private writeRecord(record: Uint8Array, entryIndex: number): void {
    const segment = this.currentSegment();
    this.buffer(segment, record, false);
    segment.maxEntryIndex = Math.max(segment.maxEntryIndex, entryIndex);
  }

  private currentSegment(): Segment {
    const current = this.segments.at(-1);
    return current === undefined || current.bytes >= this.segmentBytes
      ? this.startSegment()
      : current;
  }

  /** Starts a segment that begins with the current hard state. */
  private startSegment(): Segment {
    const sequence = (this.segments.at(-1)?.sequence ?? 0) + 1;
    const segment: Segment = {
      sequence, name: segmentName(sequence), bytes: 0, unflushedBytes: 0, maxEntryIndex: 0,
      hardStatesDurable: 0, hardStatesWritten: 0, onDisk: false, handle: null,
    };
    this.segments.push(segment);
    if (this.hardState !== null) {
      const record = encodeRecord(RecordType.HardState, encodeHardState(this.hardState));
      this.buffer(segment, record, true);
    }
    return segment;
  }

  private buffer(segment: Segment, record: Uint8Array, isHardState: boolean): void {
    const hardStates = isHardState ? 1 : 0;
    const last = this.pending.at(-1);
    if (last?.kind === 'write' && last.segment === segment) {
      last.chunks.push(record);
      last.hardStates += hardStates;
    } else {
      this.pending.push({ kind: 'write', segment, chunks: [record], hardStates });
    }
    segment.bytes += record.length;
    segment.unflushedBytes += record.length;
    this.logBytes += record.length;
  }

  /** Performs the buffered operations in order; the group commit. */
  private async flush(blocking: boolean): Promise<void> {
    if (this.failure !== null) throw this.failure;
    const operations = this.pending;
    this.pending = [];
    try {
      let dirty: Segment | null = null;
      let compacted = false;
      for (const operation of operations) {
        if (operation.kind === 'write') {
          if (dirty !== null && dirty !== operation.segment) await this.seal(dirty);
          await this.writeSegment(operation.segment, operation.chunks, blocking);
          operation.segment.hardStatesWritten += operation.hardStates;
          dirty = operation.segment;
        } else if (operation.kind === 'remove-prepared') {
          await this.fileSystem.remove(joinPath(this.directory, operation.name));
        } else {
          if (dirty !== null) await this.syncSegment(dirty);
          dirty = null;
          if (operation.kind === 'snapshot') {
            await writeSnapshotFile(this.fileSystem, this.directory, operation.record);
          } else {
            await takePreparedSnapshot(this.fileSystem, this.directory, operation.name);
          }
          this.durableSnapshotIndex = operation.lastIncludedIndex;
          compacted = true;
        }
      }
      if (dirty !== null) await this.syncSegment(dirty);
      if (compacted) await this.removeCompactedSegments();
    } catch (error) {
      // After a failed write or fsync nothing on disk can be trusted (fsync errors are not
      // retryable): the storage refuses every later call and the node must restart from load().
      this.failure = error;
      throw error;
    }
  }

  private async writeSegment(
    segment: Segment, chunks: Uint8Array[], blocking: boolean,
  ): Promise<void> {
    if (segment.handle === null) {
      segment.handle = await this.fileSystem.open(this.pathOf(segment), 'append');
    }
    const bytes = chunks.length === 1 ? chunks[0]! : concatenateBytes(chunks);
    const handle = segment.handle;
    if (blocking && handle.appendBlocking !== undefined) {
      handle.appendBlocking(bytes);
    } else {
      await handle.append(bytes);
    }
    segment.unflushedBytes -= bytes.length;
  }

  /** fsyncs a segment, and the directory when the segment's name is new. */
  private async syncSegment(segment: Segment): Promise<void> {
    await segment.handle!.sync();
    segment.hardStatesDurable += segment.hardStatesWritten;
    segment.hardStatesWritten = 0;
    if (!segment.onDisk) {
      await this.fileSystem.syncDirectory(this.directory);
      segment.onDisk = true;
    }
  }

  /** Makes a segment durable before a later one is written, and closes it. */
  private async seal(segment: Segment): Promise<void> {
    await this.syncSegment(segment);
    await segment.handle!.close();
    segment.handle = null;
  }

  /**
   * Deletes the oldest segments while they hold only entries the durable snapshot covers and no
   * hard state that a later segment does not hold durably too.
   */
  private async removeCompactedSegments(): Promise<void> {
    let lastWithHardState = -1;
    this.segments.forEach((segment, position) => {
      if (segment.hardStatesDurable > 0) lastWithHardState = position;
    });
    let removed = 0;
    for (const [position, segment] of this.segments.entries()) {
      const deletable = position < this.segments.length - 1 && segment.unflushedBytes === 0 &&
        segment.maxEntryIndex <= this.durableSnapshotIndex &&
        (position < lastWithHardState || segment.hardStatesDurable === 0);
      if (!deletable) break;
      const exists = segment.onDisk || segment.handle !== null;
      await segment.handle?.close();
      segment.handle = null;
      if (exists) await this.fileSystem.remove(this.pathOf(segment));
      this.logBytes -= segment.bytes;
      removed++;
    }
    if (removed === 0) return;
    this.segments = this.segments.slice(removed);
    await this.fileSystem.syncDirectory(this.directory);
  }

  private pathOf(segment: Segment): string {
    return joinPath(this.directory, segment.name);
  }
}
