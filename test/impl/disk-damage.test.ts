// Issue 26 item 5 / issue 24 item 6 on the simulated disk: damage after sync (a flipped byte
// that an fsync made durable, a durable rename undone) is always refused by the WAL's load;
// crashes alone (torn writes, their unwritten zeros) never look like damage.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { MemoryDisk } from '../../impl/sim/memory-disk.js';
import { WalCorruptionError } from '../../impl/wal/errors.js';
import { withChecksumsSkipped } from '../../impl/wal/planted-faults.js';
import { entries, openWal, snapshotAt } from './wal-helpers.js';

const walFiles = (path: string) => /\/(wal-\d+\.log|snapshot\.bin)$/.test(path);

/** A node directory with synced entries, hard states and, with `segmentBytes`, a snapshot. */
async function writtenDisk(seed: number, snapshot: boolean): Promise<MemoryDisk> {
  const disk = new MemoryDisk(new SeededRandom(seed));
  const { storage } = openWal(disk.mount(), '/node', 300);
  await storage.load();
  for (let index = 1; index <= 30; index += 3) {
    storage.saveHardState({ currentTerm: index, votedFor: 1, commitIndex: index - 1 });
    storage.appendEntries(index, entries(index, 3, index));
    if (snapshot && index === 16) storage.saveSnapshot(snapshotAt(14, 13));
    await storage.sync();
  }
  // Unsynced records too: the crash tears some of them.
  storage.appendEntries(31, entries(31, 4, 31));
  disk.crash();
  return disk;
}

async function loadOutcome(disk: MemoryDisk): Promise<'loaded' | 'refused'> {
  return openWal(disk.mount(), '/node', 300).storage.load().then(() => 'loaded' as const,
    (error: unknown) => {
      assert.instance(error, WalCorruptionError);
      return 'refused' as const;
    });
}

test('crashes alone never look like damage: torn tails load', async () => {
  for (let seed = 0; seed < 60; seed++) {
    assert.is(await loadOutcome(await writtenDisk(seed, seed % 2 === 0)), 'loaded', `seed ${seed}`);
  }
});

test('a flipped synced byte, in a segment or the snapshot, is always refused', async () => {
  const damagedFiles = new Set<string>();
  for (let seed = 0; seed < 120; seed++) {
    const disk = await writtenDisk(seed, seed % 2 === 0);
    const damage = disk.damageSyncedByte(new SeededRandom(1000 + seed), walFiles);
    assert.ok(damage !== null);
    damagedFiles.add(damage.path.endsWith('snapshot.bin') ? 'snapshot' : 'segment');
    assert.is(await loadOutcome(disk), 'refused', `seed ${seed}: ${damage.path} ${damage.offset}`);
  }
  assert.equal([...damagedFiles].sort(), ['segment', 'snapshot']);
});

test('a lost durable rename of the snapshot: refused, or the old snapshot and the log load',
  async () => {
    const outcomes = new Set<string>();
    for (let seed = 0; seed < 30; seed++) {
      const disk = await writtenDisk(seed, true);
      const lost = disk.loseSyncedRename();
      assert.equal(lost, { from: '/node/snapshot.bin.tmp', to: '/node/snapshot.bin' });
      assert.is(disk.loseSyncedRename(), null, 'one durable rename to lose');
      const { storage } = openWal(disk.mount(), '/node', 300);
      const loaded = await storage.load().catch((error: unknown) => error);
      if (loaded instanceof WalCorruptionError) {
        outcomes.add('refused');
        assert.match(loaded.message, /the log starts at index \d+, the snapshot ends at 0/);
        continue;
      }
      outcomes.add('loaded');
      assert.ok(!(loaded instanceof Error));
      assert.is((loaded as { snapshot: unknown }).snapshot, null, 'the snapshot is gone');
      assert.is((loaded as { entries: unknown[] }).entries.length >= 30, true);
    }
    assert.ok(outcomes.has('refused'), [...outcomes].join());
  });

// Simulator seed 3 (--value-bytes 4096): a snapshot installed past the log's end, its commit
// saved, then the rename lost. The log no longer reaches the saved commit index.
test('a lost rename of a snapshot past the log, with its commit saved: refused', async () => {
  const disk = new MemoryDisk(new SeededRandom(3));
  const { storage } = openWal(disk.mount(), '/node', 300);
  await storage.load();
  storage.appendEntries(1, entries(1, 6, 1));
  storage.saveHardState({ currentTerm: 1, votedFor: 1, commitIndex: 6 });
  await storage.sync();
  storage.saveSnapshot(snapshotAt(20, 2));
  storage.saveHardState({ currentTerm: 2, votedFor: 1, commitIndex: 20 });
  await storage.sync();
  disk.crash();
  assert.ok(disk.loseSyncedRename() !== null);
  const loaded = await openWal(disk.mount(), '/node', 300).storage.load()
    .catch((error: unknown) => error);
  assert.instance(loaded, WalCorruptionError);
  assert.match((loaded as Error).message,
    /^disk damage in \/node at offset 0: saved commit 20 beyond the log, which ends at [06]:/);
});

test('planted fault: skipping checksums loads many flipped bytes (those in data)', async () => {
  let loaded = 0;
  for (let seed = 0; seed < 40; seed++) {
    const disk = await writtenDisk(seed, false);
    disk.damageSyncedByte(new SeededRandom(2000 + seed), walFiles);
    if (await withChecksumsSkipped(() => loadOutcome(disk).catch(() => 'refused'))
      === 'loaded') loaded++;
  }
  // A flip in a length, type or flags byte still breaks the structure; one in data does not.
  assert.ok(loaded >= 10, `${loaded} of 40 loaded`);
});

test.run();
