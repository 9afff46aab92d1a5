// Snapshots prepared in the background (issue 27, WalStorage.prepareSnapshot) on the real disk:
// the record built in pieces is the one-piece record byte for byte, the piecewise JSON is the
// one-piece JSON, a prepared snapshot is taken by a rename, one nobody takes is removed (at
// once when overtaken, on load when left over), and a mismatching one is not taken.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BTreeMap } from '../../spec/group/btree-map.js';
import { mapJsonCodec } from '../../impl/node/json-maps.js';
import { jsonPiecesWithMaps, mapJsonSnapshotCodec } from '../../impl/node/json-pieces.js';
import { NodeFileSystem } from '../../impl/real/node-file-system.js';
import { encodeSnapshot } from '../../impl/wal/payloads.js';
import { encodeRecord, RecordType } from '../../impl/wal/record.js';
import { snapshotRecordPieces } from '../../impl/wal/snapshot-record.js';
import { WalStorage } from '../../impl/wal/wal-storage.js';
import type { RecoveryEvent } from '../../impl/wal/errors.js';
import type { Snapshot } from '../../spec/raft/types.js';
import { entries } from './wal-helpers.js';

const fileSystem = new NodeFileSystem();
const root = mkdtempSync(join(tmpdir(), 'shardkv-wal-prepared-'));
let directories = 0;
const freshDirectory = () => join(root, `node-${directories++}`);
let pauses = 0;
const pause = async () => {
  pauses++;
};

test.after(() => rmSync(root, { recursive: true, force: true }));

/** A state shaped like a group's: maps (B-trees) inside plain objects and arrays. */
function groupLikeState(valueBytes: number) {
  let kv = BTreeMap.empty<string, string>();
  for (let index = 0; index < 5; index++) {
    kv = kv.set(`key-${index}`, String.fromCharCode(65 + index).repeat(valueBytes));
  }
  kv = kv.set('quote"and\\slash\u2028é', 'line\nbreak \ud83d\ude00');
  // Long strings are cut in slices: pairs across a cut, escapes and multi-byte text.
  kv = kv.set('long', `${'é"\\\n'.repeat(20_000)}x${'\ud83d\ude00'.repeat(70_000)}`);
  let dedup = BTreeMap.empty<number, unknown>();
  dedup = dedup.set(7, { client: 7, seq: 3, digest: 12, result: 'x', refused: undefined });
  return {
    shards: [{ phase: 'serving', kv, dedup, receipt: null }, { phase: 'absent', kv: null }],
    sessionFloor: 4, skipped: undefined, list: [1, undefined, 'two', { nested: [kv] }],
  };
}

function openStorage(directory: string, events: RecoveryEvent[] = [], files = fileSystem) {
  return new WalStorage<unknown, unknown>({
    fileSystem: files, directory, commandCodec: mapJsonCodec(),
    snapshotCodec: mapJsonSnapshotCodec(), onRecovery: (event) => events.push(event),
  });
}

/** A new storage holding `count` synced entries of term 1. */
async function storageWithEntries(directory: string, count: number, files = fileSystem) {
  const storage = openStorage(directory, [], files);
  await storage.load();
  storage.appendEntries(1, entries(1, count, 1));
  await storage.sync();
  return storage;
}

const preparedIn = (directory: string) =>
  readdirSync(directory).filter((name) => name.endsWith('.prepared'));

const decoder = new TextDecoder();

test('piecewise JSON with maps is the one-piece JSON, in pieces of bounded size', () => {
  for (const valueBytes of [0, 10, 100_000]) {
    const state = groupLikeState(valueBytes);
    const pieces = [...jsonPiecesWithMaps(state)];
    const whole = mapJsonCodec().encode(state);
    assert.is(pieces.map((piece) => decoder.decode(piece)).join(''), decoder.decode(whole));
    if (valueBytes === 100_000) assert.ok(pieces.length >= 5, `${pieces.length} pieces`);
  }
});

test('a snapshot record built in pieces is the one-piece record byte for byte', async () => {
  const data = mapJsonCodec().encode(groupLikeState(300_000));
  const cuts = [0, 1, 70_000, 333_333, data.length - 1, data.length];
  const pieces = cuts.slice(1).map((end, position) => data.subarray(cuts[position], end));
  pauses = 0;
  const built = await snapshotRecordPieces(12, 3, pieces, pause);
  const joined = Buffer.concat(built.pieces);
  const expected = encodeRecord(RecordType.Snapshot, encodeSnapshot({
    lastIncludedIndex: 12, lastIncludedTerm: 3, data,
  }));
  assert.is(built.bytes, expected.length);
  assert.ok(joined.equals(expected), 'same bytes');
  assert.ok(pauses >= 6, `paused ${pauses} times over 1.5 MB`);
});

test('a prepared snapshot is taken by the saveSnapshot of it: loads back, no file left',
  async () => {
    const directory = freshDirectory();
    const storage = await storageWithEntries(directory, 6);
    const snapshot: Snapshot<unknown> = {
      lastIncludedIndex: 5, lastIncludedTerm: 1, data: groupLikeState(50_000),
    };
    await storage.prepareSnapshot(snapshot, pause);
    assert.ok(readdirSync(directory).includes('snapshot-5.prepared'), 'written ahead');
    storage.saveSnapshot(snapshot);
    await storage.sync();
    assert.not.ok(readdirSync(directory).includes('snapshot-5.prepared'), 'renamed');
    const snapshotBytes = storage.sizes().snapshotBytes;
    await storage.close();
    // The same snapshot through the one-piece path: the same file.
    const other = freshDirectory();
    const direct = openStorage(other);
    await direct.load();
    direct.appendEntries(1, entries(1, 6, 1));
    direct.saveSnapshot(snapshot);
    await direct.close();
    const taken = readFileSync(join(directory, 'snapshot.bin'));
    assert.ok(taken.equals(readFileSync(join(other, 'snapshot.bin'))), 'same snapshot file');
    assert.is(snapshotBytes, taken.length);
    const loaded = await openStorage(directory).load();
    assert.is(loaded.snapshot?.lastIncludedIndex, 5);
    assert.is(mapJsonCodec().encode(loaded.snapshot?.data).length,
      mapJsonCodec().encode(snapshot.data).length);
    assert.equal(loaded.entries, entries(6, 1, 1));
  });

test('a prepared snapshot another one overtakes is removed, never taken', async () => {
  const directory = freshDirectory();
  // A snapshot saved while a prepared one is being written overtakes it.
  let overtake = () => undefined as void;
  const files = new (class extends NodeFileSystem {
    override open(path: string, mode: 'append' | 'truncate') {
      if (path.endsWith('.prepared')) overtake();
      return super.open(path, mode);
    }
  })();
  const storage = await storageWithEntries(directory, 8, files);
  const early = { lastIncludedIndex: 3, lastIncludedTerm: 1, data: { applied: 3 } };
  await storage.prepareSnapshot(early, pause);
  // The same index with other data (an installed snapshot, say): written in the step.
  const other = { lastIncludedIndex: 4, lastIncludedTerm: 1, data: { applied: 4 } };
  await storage.prepareSnapshot(other, pause);
  storage.saveSnapshot({ ...other, data: { applied: 4, installed: true } });
  await storage.sync();
  assert.equal(preparedIn(directory), []);
  overtake = () => storage.saveSnapshot({ lastIncludedIndex: 7, lastIncludedTerm: 1, data: 7 });
  await storage.prepareSnapshot({ lastIncludedIndex: 6, lastIncludedTerm: 1, data: 6 }, pause);
  assert.equal(preparedIn(directory), ['snapshot-6.prepared'], 'written, then overtaken');
  await storage.sync();
  assert.equal(preparedIn(directory), [], 'removed with the next sync');
  await storage.close();
  const loaded = await openStorage(directory).load();
  assert.equal(loaded.snapshot?.data, 7);
});

test('a leftover prepared snapshot is removed on load and reported', async () => {
  const directory = freshDirectory();
  const storage = await storageWithEntries(directory, 4);
  await storage.prepareSnapshot({ lastIncludedIndex: 2, lastIncludedTerm: 1, data: {} }, pause);
  await storage.close();
  const events: RecoveryEvent[] = [];
  const loaded = await openStorage(directory, events).load();
  assert.is(loaded.snapshot, null);
  assert.equal(loaded.entries, entries(1, 4, 1));
  const file = join(directory, 'snapshot-2.prepared');
  assert.equal(events, [{ kind: 'leftover-temporary', file }]);
  assert.not.ok(readdirSync(directory).includes('snapshot-2.prepared'));
  writeFileSync(join(directory, 'snapshot-9.prepared'), 'half');
  const again: RecoveryEvent[] = [];
  await openStorage(directory, again).load();
  assert.is(again.length, 1);
});

test.run();
