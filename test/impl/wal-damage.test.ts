// Issue 26 item 5 / issue 24 item 6: a damaged record followed by valid ones is not a torn
// tail and is never cut; only a final record that was never wholly written is (etcd's WAL
// draws the same line). The files are on the real disk; the damage is planted by hand.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NodeFileSystem } from '../../impl/real/node-file-system.js';
import { WalCorruptionError } from '../../impl/wal/errors.js';
import { withChecksumsSkipped } from '../../impl/wal/planted-faults.js';
import { encodeRecord, RecordType } from '../../impl/wal/record.js';
import { unwrittenZeroBytesMin } from '../../impl/wal/torn-tail.js';
import { entries, openWal } from './wal-helpers.js';

const root = mkdtempSync(join(tmpdir(), 'shardkv-wal-damage-'));
const fileSystem = new NodeFileSystem();
let directories = 0;
test.after(() => rmSync(root, { recursive: true, force: true }));

/** Twenty entries, synced one by one, in one segment; returns where each record starts. */
async function twentyEntries() {
  const directory = join(root, `node-${directories++}`);
  const { storage } = openWal(fileSystem, directory);
  await storage.load();
  const starts: number[] = [];
  for (let index = 1; index <= 20; index++) {
    starts.push(storage.sizes().logBytes);
    storage.appendEntries(index, entries(index, 1, 1));
    await storage.sync();
  }
  await storage.close();
  const name = readdirSync(directory).find((file) => file.startsWith('wal-'))!;
  const path = join(directory, name);
  return { directory, path, bytes: readFileSync(path), starts };
}

async function loadError(directory: string): Promise<unknown> {
  return openWal(fileSystem, directory).storage.load().then(() => null, (error) => error);
}

test('a flipped byte in the middle of the last segment is damage: refused, nothing cut',
  async () => {
    const { directory, path, bytes, starts } = await twentyEntries();
    for (const record of [0, 7, 10, 18]) {
      const damaged = Buffer.from(bytes);
      damaged[starts[record]! + 12]! ^= 0x10;
      writeFileSync(path, damaged);
      const error = await loadError(directory);
      assert.instance(error, WalCorruptionError, `record ${record + 1}`);
      assert.is((error as WalCorruptionError).offset, starts[record]);
      assert.match((error as Error).message, /a valid record follows at offset \d+/);
      assert.is(statSync(path).size, bytes.length, 'the valid records after it are all kept');
    }
  });

test('a damaged length field in the middle is damage too (the next valid record is found)',
  async () => {
    const { directory, path, bytes, starts } = await twentyEntries();
    const damaged = Buffer.from(bytes);
    damaged[starts[5]! + 5]! ^= 0x7f;
    writeFileSync(path, damaged);
    assert.instance(await loadError(directory), WalCorruptionError);
    // The last record's length made to run past the end: the record is whole with the
    // length "to the end of the file", so it is a damaged field, not a torn write.
    const last = Buffer.from(bytes);
    last[starts[19]! + 4]! += 1;
    writeFileSync(path, last);
    const error = await loadError(directory);
    assert.instance(error, WalCorruptionError);
    assert.match((error as Error).message, /length field is damaged/);
  });

test('a record whose checksum matches but whose payload is malformed is damage', async () => {
  const { directory, path, bytes } = await twentyEntries();
  const bad = encodeRecord(RecordType.Truncate, Uint8Array.of(1, 2, 3));
  writeFileSync(path, Buffer.concat([bytes, bad]));
  const error = await loadError(directory);
  assert.instance(error, WalCorruptionError);
  assert.match((error as Error).message, /its checksum matches/);
});

test('an unwritten tail (zeros) is a torn write: cut and reported', async () => {
  const { directory, path, bytes, starts } = await twentyEntries();
  // Zeros from inside the last record to its end and beyond, or from its first byte.
  const cases = [
    Buffer.concat([bytes.subarray(0, starts[19]! + 3), Buffer.alloc(unwrittenZeroBytesMin)]),
    Buffer.concat([bytes.subarray(0, starts[19]!), Buffer.alloc(5)]),
    Buffer.concat([bytes, Buffer.alloc(3)]),
  ];
  for (const [position, tail] of cases.entries()) {
    writeFileSync(path, tail);
    const { storage, events } = openWal(fileSystem, directory);
    const loaded = await storage.load();
    const kept = position === 2 ? 20 : 19;
    assert.is(loaded.entries.length, kept, `case ${position}`);
    assert.is(events[0]?.kind, 'torn-tail', `case ${position}`);
    assert.is(statSync(path).size, position === 2 ? bytes.length : starts[19]);
    await storage.close();
  }
});

test('planted fault: a WAL that skips checksums loads a flipped byte as data', async () => {
  const { directory, path, bytes, starts } = await twentyEntries();
  const damaged = Buffer.from(bytes);
  // Inside entry 5's command bytes ("k5"): a different key, and nothing structural breaks.
  damaged[starts[4]! + 9 + 17 + 9]! ^= 0x01;
  writeFileSync(path, damaged);
  assert.instance(await loadError(directory), WalCorruptionError);
  const loaded = await withChecksumsSkipped(() => openWal(fileSystem, directory).storage.load());
  assert.is(loaded.entries.length, 20);
  assert.not.equal(loaded.entries[4], entries(5, 1, 1)[0], 'the damaged command was applied');
});

test.run();
