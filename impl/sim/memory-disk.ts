/**
 * A simulated disk (FoundationDB's simulated file system, TigerBeetle's storage fault model) for
 * one node: files live in memory, and a crash keeps only what the POSIX rules promise. A file's
 * bytes written since its last sync are lost, kept, or kept in part (a torn write, its last
 * kept bytes possibly zeros: its length written, its data not); a directory's names created,
 * renamed or removed since its last sync survive only as a prefix of those operations, in order (a journalling file system).
 * Every choice is a draw from the seeded Random, so a seed replays the same losses. Damage
 * after sync (a flipped durable byte, a durable rename undone) happens only when asked for.
 *
 * A node process sees the disk through a mount. `crash()` kills every mount: an operation of a
 * dead mount never settles (the process that issued it is gone) and changes nothing.
 */
import { assert } from '../../spec/assert.js';
import type { Random } from '../io/random.js';
import type { FileHandle, FileSystem } from '../wal/file-system.js';
import { unwrittenZeroBytesMin } from '../wal/torn-tail.js';

/** One file's contents: `durableLength` bytes are on the platter unless `durableCopy` says. */
class Inode {
  bytes = new Uint8Array(64);
  length = 0;
  durableLength = 0;
  /** The durable contents when a truncation made the current ones stop extending them. */
  durableCopy: Uint8Array | null = null;
  /** Bytes an fsync made durable (a crash's kept tail never counts): what damage may hit. */
  fsyncedLength = 0;

  append(data: Uint8Array): void {
    if (this.length + data.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + data.length));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(data, this.length);
    this.length += data.length;
  }

  truncate(length: number): void {
    assert(length >= 0, 'negative length');
    if (length < this.durableLength && this.durableCopy === null) {
      this.durableCopy = this.bytes.slice(0, this.durableLength);
    }
    if (length > this.length) this.append(new Uint8Array(length - this.length));
    this.length = length;
  }

  sync(): void {
    this.durableLength = this.length;
    this.fsyncedLength = this.length;
    this.durableCopy = null;
  }

  /** After a crash: what is left is on the platter, though no fsync covered the torn tail. */
  settle(): void {
    this.durableLength = this.length;
    this.fsyncedLength = Math.min(this.fsyncedLength, this.length);
    this.durableCopy = null;
  }

  /** An fsync that began when the file was `length` bytes long. */
  syncPrefix(length: number): void {
    if (length === this.length) this.sync();
    else if (this.durableCopy === null && length < this.length) {
      this.durableLength = Math.max(this.durableLength, length);
      this.fsyncedLength = this.durableLength;
    }
  }

  contents(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

type DirectoryOperation =
  | { readonly kind: 'link'; readonly name: string; readonly inode: Inode }
  | { readonly kind: 'unlink'; readonly name: string };

/** A rename, kept so that damage can undo it after its directory fsync (loseSyncedRename). */
interface Rename {
  readonly from: string;
  readonly to: string;
  readonly inode: Inode;
  /** What `to` named before. */
  readonly replaced: Inode | undefined;
}

class Directory {
  current = new Map<string, Inode>();
  durable = new Map<string, Inode>();
  pending: DirectoryOperation[] = [];
  pendingRenames: Rename[] = [];
  /** The last rename a directory fsync made durable. */
  syncedRename: Rename | null = null;

  apply(operation: DirectoryOperation): void {
    applyTo(this.current, operation);
    this.pending.push(operation);
  }

  sync(): void {
    this.durable = new Map(this.current);
    this.pending = [];
    this.syncedRename = this.pendingRenames.at(-1) ?? this.syncedRename;
    this.pendingRenames = [];
  }

  revertToDurable(): void {
    this.current = new Map(this.durable);
    this.pending = [];
    this.pendingRenames = [];
  }
}

function applyTo(entries: Map<string, Inode>, operation: DirectoryOperation): void {
  if (operation.kind === 'link') entries.set(operation.name, operation.inode);
  else entries.delete(operation.name);
}

export interface MemoryDiskOptions {
  /** Awaited by every file and directory sync before it takes effect: simulated fsync latency. */
  readonly syncDelay?: () => Promise<void>;
  /** Told after every crash, also one that `crashBeforeOperation` planned (the simulator then
   * stops the process that was writing). */
  readonly onCrash?: (report: CrashReport) => void;
}

/** A byte that an fsync had made durable, flipped (damageSyncedByte). */
export interface SyncedByteDamage {
  readonly path: string;
  readonly offset: number;
}

/** A durable rename undone (loseSyncedRename): `to` names its old file again, `from` the new. */
export interface LostRename {
  readonly from: string;
  readonly to: string;
}

/** What the last crash did, for the simulator's event log. */
export interface CrashReport {
  readonly filesTorn: number;
  readonly bytesLost: number;
  readonly directoryOperationsLost: number;
}

export class MemoryDisk {
  private readonly directories = new Map<string, Directory>();
  private incarnation = 0;
  /** Counts the changes (and crashes): a reader may keep what it read while this is still. */
  private changeCount = 0;
  private operationsBeforeCrash = Number.POSITIVE_INFINITY;

  constructor(private readonly random: Random, private readonly options: MemoryDiskOptions = {}) {}

  /** The file system as one process incarnation sees it, until the next crash. */
  mount(): FileSystem {
    return new MountedFileSystem(this, this.incarnation);
  }

  /** Power loss: unsynced data and names are lost as the seed decides; every mount dies. */
  /** How many changes and crashes the disk has seen: equal counts, equal contents. */
  get changes(): number {
    return this.changeCount;
  }

  crash(): CrashReport {
    this.changeCount++;
    this.incarnation++;
    this.operationsBeforeCrash = Number.POSITIVE_INFINITY;
    let directoryOperationsLost = 0;
    const survivors = new Set<Inode>();
    for (const directory of this.directories.values()) {
      const kept = this.random.nextInt(directory.pending.length + 1);
      directoryOperationsLost += directory.pending.length - kept;
      for (const operation of directory.pending.slice(0, kept)) {
        applyTo(directory.durable, operation);
      }
      directory.revertToDurable();
      directory.durable.forEach((inode) => survivors.add(inode));
    }
    let filesTorn = 0;
    let bytesLost = 0;
    for (const inode of survivors) {
      const before = inode.length;
      if (this.crashContents(inode)) filesTorn++;
      bytesLost += Math.max(0, before - inode.length);
    }
    const report = { filesTorn, bytesLost, directoryOperationsLost };
    this.options.onCrash?.(report);
    return report;
  }

  /**
   * Media damage after sync (issue 26): flips one byte, drawn from `random`, among the bytes an
   * fsync made durable in the files `eligible` accepts. For a disk whose node is down.
   */
  damageSyncedByte(random: Random, eligible: (path: string) => boolean): SyncedByteDamage | null {
    const files: { path: string; inode: Inode }[] = [];
    for (const [directoryPath, directory] of [...this.directories].sort(byKey)) {
      for (const [name, inode] of [...directory.durable].sort(byKey)) {
        const path = `${directoryPath}/${name}`;
        if (inode.fsyncedLength > 0 && eligible(path)) files.push({ path, inode });
      }
    }
    if (files.length === 0) return null;
    const { path, inode } = files[random.nextInt(files.length)]!;
    const offset = random.nextInt(inode.fsyncedLength);
    inode.bytes[offset] = inode.bytes[offset]! ^ (1 + random.nextInt(255));
    return { path, offset };
  }

  /**
   * A disk that lied about a directory fsync: the last durable rename comes undone, its target
   * naming the file it replaced (or nothing) and its source the renamed file. For a disk whose
   * node is down; null when no durable rename is left to lose.
   */
  loseSyncedRename(): LostRename | null {
    for (const [directoryPath, directory] of [...this.directories].sort(byKey)) {
      const rename = directory.syncedRename;
      if (rename === null || directory.durable.get(rename.to) !== rename.inode) continue;
      directory.syncedRename = null;
      directory.durable.set(rename.from, rename.inode);
      if (rename.replaced === undefined) directory.durable.delete(rename.to);
      else directory.durable.set(rename.to, rename.replaced);
      directory.revertToDurable();
      return { from: `${directoryPath}/${rename.from}`, to: `${directoryPath}/${rename.to}` };
    }
    return null;
  }

  /** Crashes just before the `count`-th next changing operation (1: the very next one). */
  crashBeforeOperation(count: number): void {
    assert(Number.isInteger(count) && count >= 1, `bad operation count ${count}`);
    this.operationsBeforeCrash = count;
  }

  /** Whether a crash planned by crashBeforeOperation is still to come. */
  get crashPlanned(): boolean {
    return this.operationsBeforeCrash !== Number.POSITIVE_INFINITY;
  }

  /** Forgets a crash planned by crashBeforeOperation that has not happened. */
  cancelPlannedCrash(): void {
    this.operationsBeforeCrash = Number.POSITIVE_INFINITY;
  }

  isLive(incarnation: number): boolean {
    return incarnation === this.incarnation;
  }

  /** Counts a changing operation; false if the disk crashed instead of performing it. */
  beginChange(incarnation: number): boolean {
    if (!this.isLive(incarnation)) return false;
    this.changeCount++;
    this.operationsBeforeCrash--;
    if (this.operationsBeforeCrash > 0) return true;
    this.crash();
    return false;
  }

  syncDelay(): Promise<void> {
    return this.options.syncDelay?.() ?? Promise.resolve();
  }

  directory(path: string, create = false): Directory {
    let directory = this.directories.get(path);
    if (directory === undefined && create) {
      directory = new Directory();
      this.directories.set(path, directory);
    }
    if (directory === undefined) throw new Error(`ENOENT: no such directory ${path}`);
    return directory;
  }

  /** Returns whether the unsynced bytes were torn (kept in part). */
  private crashContents(inode: Inode): boolean {
    if (inode.durableCopy !== null) {
      // A truncation is in flight: the file is either before it or after it.
      if (this.random.nextInt(2) === 0) {
        const durable = inode.durableCopy;
        inode.length = 0;
        inode.durableCopy = null;
        inode.append(durable);
      }
      inode.settle();
      return false;
    }
    const unsynced = inode.length - inode.durableLength;
    const choice = this.random.nextInt(3);
    const kept = choice === 0 ? 0 : choice === 1 ? unsynced : this.random.nextInt(unsynced + 1);
    const keptEnd = inode.durableLength + kept;
    if (kept > 0 && kept < unsynced && this.random.nextInt(4) === 0) {
      // The file's length reached the platter but its last data did not: those bytes read
      // as zeros, a run longer than any record holds (or from the last fsynced byte on).
      const drawn = inode.durableLength + this.random.nextInt(kept);
      const from = Math.max(inode.durableLength, Math.min(drawn, keptEnd - unwrittenZeroBytesMin));
      inode.bytes.fill(0, from, keptEnd);
      // Drawn as when this was a scribbled byte, so that seeds replay the crashes they did.
      this.random.nextInt(256);
    }
    inode.length = keptEnd;
    inode.settle();
    return kept > 0 && kept < unsynced;
  }
}

function byKey<T>(first: [string, T], second: [string, T]): number {
  return first[0] < second[0] ? -1 : first[0] > second[0] ? 1 : 0;
}

/** A promise that never settles: what a dead process waits for. */
function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

function splitPath(path: string): { directory: string; name: string } {
  const slash = path.lastIndexOf('/');
  assert(slash > 0 && slash < path.length - 1, `not a file path: ${path}`);
  return { directory: path.slice(0, slash), name: path.slice(slash + 1) };
}

class MountedFileSystem implements FileSystem {
  constructor(private readonly disk: MemoryDisk, private readonly incarnation: number) {}

  async makeDirectory(path: string): Promise<void> {
    if (!this.disk.isLive(this.incarnation)) return never();
    this.disk.directory(path.replace(/\/+$/, ''), true);
  }

  async list(directory: string): Promise<string[]> {
    if (!this.disk.isLive(this.incarnation)) return never();
    return [...this.disk.directory(directory).current.keys()].sort();
  }

  async readFile(path: string): Promise<Uint8Array> {
    if (!this.disk.isLive(this.incarnation)) return never();
    return this.lookup(path).contents();
  }

  async open(path: string, mode: 'append' | 'truncate'): Promise<FileHandle> {
    const { directory, name } = splitPath(path);
    const entries = this.disk.directory(directory);
    let inode = entries.current.get(name);
    if (inode === undefined || mode === 'truncate') {
      if (!this.disk.beginChange(this.incarnation)) return never();
    }
    if (inode === undefined) {
      inode = new Inode();
      entries.apply({ kind: 'link', name, inode });
    } else if (mode === 'truncate') {
      inode.truncate(0);
    }
    if (!this.disk.isLive(this.incarnation)) return never();
    return new MountedFile(this.disk, this.incarnation, inode);
  }

  async rename(from: string, to: string): Promise<void> {
    const source = splitPath(from);
    const target = splitPath(to);
    assert(source.directory === target.directory, 'rename across directories');
    const inode = this.lookup(from);
    if (!this.disk.beginChange(this.incarnation)) return never();
    const directory = this.disk.directory(source.directory);
    const replaced = directory.current.get(target.name);
    directory.pendingRenames.push({ from: source.name, to: target.name, inode, replaced });
    directory.apply({ kind: 'unlink', name: source.name });
    directory.apply({ kind: 'link', name: target.name, inode });
  }

  async remove(path: string): Promise<void> {
    const { directory, name } = splitPath(path);
    this.lookup(path);
    if (!this.disk.beginChange(this.incarnation)) return never();
    this.disk.directory(directory).apply({ kind: 'unlink', name });
  }

  async syncDirectory(path: string): Promise<void> {
    if (!this.disk.beginChange(this.incarnation)) return never();
    await this.disk.syncDelay();
    if (!this.disk.isLive(this.incarnation)) return never();
    this.disk.directory(path).sync();
  }

  private lookup(path: string): Inode {
    const { directory, name } = splitPath(path);
    const inode = this.disk.directory(directory).current.get(name);
    if (inode === undefined) throw new Error(`ENOENT: no such file ${path}`);
    return inode;
  }
}

class MountedFile implements FileHandle {
  constructor(
    private readonly disk: MemoryDisk,
    private readonly incarnation: number,
    private readonly inode: Inode,
  ) {}

  async append(bytes: Uint8Array): Promise<void> {
    if (!this.disk.beginChange(this.incarnation)) return never();
    this.inode.append(bytes);
  }

  async truncate(length: number): Promise<void> {
    if (!this.disk.beginChange(this.incarnation)) return never();
    this.inode.truncate(length);
  }

  async sync(): Promise<void> {
    if (!this.disk.beginChange(this.incarnation)) return never();
    // What is synced is what was written before the call, not during the delay.
    const length = this.inode.length;
    await this.disk.syncDelay();
    if (!this.disk.isLive(this.incarnation)) return never();
    this.inode.syncPrefix(length);
  }

  async close(): Promise<void> {
    if (!this.disk.isLive(this.incarnation)) return never();
  }
}
