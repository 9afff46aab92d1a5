// The simulated disk loses exactly what POSIX allows a crash to lose, as a seed decides.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { MemoryDisk } from '../../impl/sim/memory-disk.js';

const bytes = (...values: number[]) => Uint8Array.from(values);
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('synced bytes survive a crash; unsynced ones are lost, kept, or torn', async () => {
  const outcomes = new Set<string>();
  for (let seed = 0; seed < 200; seed++) {
    const disk = new MemoryDisk(new SeededRandom(seed));
    const fileSystem = disk.mount();
    await fileSystem.makeDirectory('/node');
    const file = await fileSystem.open('/node/log', 'append');
    await file.append(bytes(1, 2, 3));
    await file.sync();
    await fileSystem.syncDirectory('/node');
    await file.append(bytes(4, 5, 6, 7, 8, 9));
    disk.crash();
    const after = await disk.mount().readFile('/node/log');
    assert.equal([...after.subarray(0, 3)], [1, 2, 3], `seed ${seed}`);
    assert.ok(after.length >= 3 && after.length <= 9, `seed ${seed}: ${after.length} bytes`);
    const intact = after.subarray(3).every((value, offset) => value === 4 + offset);
    outcomes.add(after.length === 3 ? 'lost' : after.length === 9 ? 'kept' : 'torn');
    if (!intact) outcomes.add('scribbled');
  }
  assert.equal([...outcomes].sort(), ['kept', 'lost', 'scribbled', 'torn']);
});

test('a name created or renamed without a directory fsync may vanish in a crash', async () => {
  const outcomes = new Set<string>();
  for (let seed = 0; seed < 40; seed++) {
    const disk = new MemoryDisk(new SeededRandom(seed));
    const fileSystem = disk.mount();
    await fileSystem.makeDirectory('/node');
    const old = await fileSystem.open('/node/snapshot', 'append');
    await old.append(bytes(1));
    await old.sync();
    await fileSystem.syncDirectory('/node');
    const temporary = await fileSystem.open('/node/snapshot.tmp', 'truncate');
    await temporary.append(bytes(2));
    await temporary.sync();
    await fileSystem.rename('/node/snapshot.tmp', '/node/snapshot');
    disk.crash();
    const after = disk.mount();
    const names = (await after.list('/node')).join(',');
    const content = (await after.readFile('/node/snapshot'))[0];
    // Directory operations survive as a prefix: create tmp, unlink tmp, link snapshot.
    assert.ok(['snapshot', 'snapshot,snapshot.tmp'].includes(names), `seed ${seed}: ${names}`);
    if (names === 'snapshot') assert.ok(content === 1 || content === 2);
    outcomes.add(`${names}:${content}`);
  }
  assert.equal([...outcomes].sort(), ['snapshot,snapshot.tmp:1', 'snapshot:1', 'snapshot:2']);
});

test('a crashed mount is dead: its operations never settle and change nothing', async () => {
  const disk = new MemoryDisk(new SeededRandom(1));
  const fileSystem = disk.mount();
  await fileSystem.makeDirectory('/node');
  const file = await fileSystem.open('/node/log', 'append');
  await file.append(bytes(1));
  await file.sync();
  await fileSystem.syncDirectory('/node');
  disk.crash();
  let settled = false;
  void file.append(bytes(2)).then(() => (settled = true));
  void fileSystem.remove('/node/log').then(() => (settled = true));
  await settle();
  assert.is(settled, false);
  assert.equal([...(await disk.mount().readFile('/node/log'))], [1]);
});

test('crashBeforeOperation crashes instead of the n-th next changing operation', async () => {
  const disk = new MemoryDisk(new SeededRandom(3));
  const fileSystem = disk.mount();
  await fileSystem.makeDirectory('/node');
  const file = await fileSystem.open('/node/log', 'append');
  await fileSystem.syncDirectory('/node');
  disk.crashBeforeOperation(2);
  await file.append(bytes(7));
  let synced = false;
  void file.sync().then(() => (synced = true));
  await settle();
  assert.is(synced, false);
  const after = await disk.mount().readFile('/node/log');
  assert.ok(after.length <= 1);
});

test('a truncation not yet synced leaves the file before or after it', async () => {
  const lengths = new Set<number>();
  for (let seed = 0; seed < 20; seed++) {
    const disk = new MemoryDisk(new SeededRandom(seed));
    const fileSystem = disk.mount();
    await fileSystem.makeDirectory('/node');
    const file = await fileSystem.open('/node/log', 'append');
    await file.append(bytes(1, 2, 3, 4));
    await file.sync();
    await fileSystem.syncDirectory('/node');
    await file.truncate(2);
    disk.crash();
    lengths.add((await disk.mount().readFile('/node/log')).length);
  }
  assert.equal([...lengths].sort(), [2, 4]);
});

test.run();
