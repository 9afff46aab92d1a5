// The checker's storage: words, the plain codec, fingerprints, the visited set and queues.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readCheckpoint, writeCheckpoint } from '../../checker/checkpoint.js';
import { openDirectory } from '../../cli/file-directory.js';
import { FingerprintSet } from '../../checker/fingerprint-set.js';
import {
  fingerprint,
  fingerprintHex,
  fingerprintWords,
  nonZeroWord,
} from '../../checker/fingerprint.js';
import { SharedFingerprintSet } from '../../checker/shared-fingerprint-set.js';
import { plainCodec, readPlain, writePlain } from '../../checker/plain-codec.js';
import { emptyQueueEntry, ParentTable, StateQueue } from '../../checker/state-store.js';
import { WordReader, WordWriter } from '../../checker/words.js';

const plainData = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.string(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.string().filter((key) => key !== '__proto__'),
      tie('value'),
      {
        maxKeys: 4,
        noNullPrototype: true,
      },
    ),
  ),
})).value;

test('the plain codec round-trips any plain data', () => {
  const codec = plainCodec<unknown>();
  fc.assert(
    fc.property(plainData, (value) => {
      const out = new WordWriter(2);
      codec.encode(value, out);
      const decoded = codec.decode(new WordReader(out.words, 0, out.length));
      assert.equal(decoded, Object.is(value, -0) ? 0 : value);
    }),
  );
});

test('the plain codec ignores key order: equal states encode equally', () => {
  const first = new WordWriter();
  const second = new WordWriter();
  writePlain({ a: 1, b: [true, 'x'] }, first);
  writePlain({ b: [true, 'x'], a: 1 }, second);
  assert.equal(
    [...first.words.subarray(0, first.length)],
    [...second.words.subarray(0, second.length)],
  );
  assert.throws(() => writePlain(() => 1, new WordWriter()), /cannot encode a function/);
  assert.throws(() => readPlain(new WordReader(Int32Array.of(99))), /unknown tag 99/);
  assert.throws(() => new WordReader(new Int32Array(0)).next(), /read past the end/);
});

test('fingerprints: deterministic, never zero, sensitive to every word and to length', () => {
  fingerprintWords(Int32Array.of(1, 2, 3), 0, 3);
  const base = fingerprintHex(fingerprint.high, fingerprint.low);
  fingerprintWords(Int32Array.of(9, 1, 2, 3), 1, 4);
  assert.is(fingerprintHex(fingerprint.high, fingerprint.low), base);
  const seen = new Set<string>([base]);
  for (const words of [[1, 2, 4], [1, 3, 3], [2, 2, 3], [1, 2, 3, 0], [1, 2], []]) {
    fingerprintWords(Int32Array.from(words), 0, words.length);
    assert.ok(fingerprint.high !== 0 && fingerprint.low !== 0);
    seen.add(fingerprintHex(fingerprint.high, fingerprint.low));
  }
  assert.is(seen.size, 7);
});

// Zero marks an empty slot. One thread stored (0, x) while workers stored (1, x), so a
// checkpoint resumed on the other worker count saw that state as new (issue 22, point 2).
test('a zero fingerprint word is a one, for every search and in old checkpoints', () => {
  assert.is(nonZeroWord(0), 1);
  assert.is(nonZeroWord(1), 1);
  assert.is(nonZeroWord(-1), -1);
  const path = mkdtempSync(join(tmpdir(), 'shardkv-storage-'));
  const directory = openDirectory(path);
  try {
    writeCheckpoint(directory, {
      identity: 'zero-words', level: 0, statesGenerated: 3, depth: 0, sometimesMask: 0,
      visited: Int32Array.of(0, 5, 7, 0, 3, 4), frontier: new Int32Array(0), frontierCount: 0,
    });
    const options = { directory, everySeconds: 0, resume: true, identity: 'zero-words' };
    const visited = readCheckpoint(options)!.visited;
    assert.equal([...visited], [1, 5, 7, 1, 3, 4]);
    const shared = new SharedFingerprintSet();
    shared.restore(visited);
    const single = new FingerprintSet();
    for (let index = 0; index < visited.length; index += 2) {
      assert.ok(single.add(visited[index]!, visited[index + 1]!));
    }
    for (const set of [shared, single]) {
      assert.not.ok(set.add(1, 5));
      assert.not.ok(set.add(7, 1));
      assert.ok(set.add(2, 2));
    }
    assert.is(shared.size, 3);
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});

test('the fingerprint set grows and keeps every member', () => {
  const set = new FingerprintSet(4);
  for (let index = 1; index <= 5000; index++) assert.ok(set.add(index, index * 7));
  assert.is(set.size, 5000);
  for (let index = 1; index <= 5000; index++) {
    assert.not.ok(set.add(index, index * 7));
    assert.ok(set.has(index, index * 7));
  }
  assert.not.ok(set.has(5001, 5001 * 7));
  // Grown by a quarter at 85 % full: 68 to 85 % full, 9.4 to 11.8 bytes a fingerprint.
  assert.ok(set.bytes >= 5000 * 9.4 && set.bytes <= 5000 * 11.8, `${set.bytes} bytes`);
  assert.throws(() => set.add(0, 0), /zero fingerprint/);
  assert.throws(() => new FingerprintSet(1), /at least two slots/);
});

test('a capped fingerprint set grows with its contents up to its cap, then refuses', () => {
  const set = new FingerprintSet(4, 1000);
  for (let index = 1; index <= 800; index++) assert.ok(set.add(index, index));
  assert.is(set.bytes, 1000 * 8, 'grown to the cap, not past it');
  set.clear();
  assert.is(set.bytes, 1000 * 8, 'clear keeps the table');
  for (let index = 1; index <= 850; index++) set.add(index, index);
  assert.throws(() => set.add(851, 851), /exceeds 1000 slots/);
});

test('the shared fingerprint set grows in its buffer: every member kept, 9.4 to 14.1 bytes each', () => {
  const set = new SharedFingerprintSet();
  // Another thread's view of the same buffer sees the grown table.
  const view = new SharedFingerprintSet(set.buffer);
  const count = 200000;
  for (let index = 1; index <= count; index++) {
    assert.ok(set.add(index, index * 7));
    set.addToSize(1);
    if (set.needsGrowth(set.size)) set.growFor(set.size);
  }
  assert.is(view.size, count);
  assert.ok(view.capacitySlots > 65536, `${view.capacitySlots} slots`);
  for (let index = 1; index <= count; index++) assert.not.ok(view.add(index, index * 7));
  assert.ok(set.bytes >= count * 9.4 && set.bytes <= count * 14.1, `${set.bytes} bytes`);
  assert.ok(view.add(count + 1, 1));
  view.addToSize(1);
  assert.is(set.fingerprints().length, (count + 1) * 2);
});

test('the shared fingerprint set grown in parts keeps every member, once each', () => {
  const cases = [[1, false], [2, false], [2, true], [3, true], [64, true]] as const;
  for (const [parts, reversed] of cases) {
    const set = new SharedFingerprintSet();
    const members: [number, number][] = [];
    // Homes in the last slot (hashes 2^32 - 1 - k), whose probes wrap round to the first,
    // then spread ones.
    for (let k = 0; k < 40; k++) members.push([~Math.imul(1, 0x9e3779b1) ^ k, 1]);
    let seed = parts + (reversed ? 7 : 0);
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) | 0) || 1;
    while (!set.needsGrowth(members.length)) members.push([next(), next()]);
    for (const [high, low] of members) assert.ok(set.add(high, low));
    set.addToSize(members.length);
    const growth = { old: set.capacitySlots, capacity: set.capacityAhead(set.size * 2) };
    assert.ok(growth.capacity > growth.old * 2, 'grown past twice the old capacity');
    // As the workers do: every part taken, then every part placed (in either order: a part
    // that wrote outside its slots would lose fingerprints), then what was left.
    const taken = Array.from({ length: parts }, (_, part) => set.takePart(growth, part, parts));
    if (reversed) taken.reverse();
    const left = taken.map((part) => set.placePart(growth, part));
    if (parts === 1) assert.ok(left[0]!.length > 0, 'the wrapped probes left for addAll');
    for (const pairs of left) set.addAll(pairs);
    assert.is(set.capacitySlots, growth.capacity);
    for (const [high, low] of members) assert.not.ok(set.add(high, low), `${parts} parts`);
    const words = new Int32Array(set.buffer, 32 * 4, growth.capacity * 2);
    assert.is(words.filter((word, index) => index % 2 === 1 && word !== 0).length, members.length);
  }
});

test('the fingerprint set: the last slot wraps to the first, any capacity', () => {
  const set = new FingerprintSet(5);
  // A low word of 0 leaves the hash the high word: 0xffffffff is the last slot's home.
  for (const high of [-1, -2, -3]) assert.ok(set.add(high, 0));
  for (const high of [-1, -2, -3]) assert.ok(set.has(high, 0));
  assert.not.ok(set.has(-4, 0));
  assert.not.ok(set.add(-2, 0));
  assert.is(set.size, 3);
});

test('state queues: FIFO by shift, LIFO by pop, entries of any length', () => {
  const queue = new StateQueue();
  const words = new WordWriter();
  for (let id = 0; id < 3000; id++) {
    words.reset();
    for (let index = 0; index < id % 5; index++) words.push(id * 10 + index);
    queue.push(id, words);
  }
  const entry = emptyQueueEntry();
  queue.popEntry(entry);
  assert.is(entry.id, 2999);
  assert.equal([...entry.words.subarray(entry.start, entry.end)], [29990, 29991, 29992, 29993]);
  for (let id = 0; id < 2999; id++) {
    queue.shiftEntry(entry);
    assert.is(entry.id, id);
    assert.is(entry.end - entry.start, id % 5);
  }
  assert.is(queue.count, 0);
  assert.throws(() => queue.shiftEntry(entry), /empty queue/);
  assert.throws(() => queue.popEntry(entry), /empty queue/);
});

test('parent table: paths are rebuilt from the initial state', () => {
  const parents = new ParentTable();
  const root = parents.add(-1, 2);
  let id = root;
  for (let step = 0; step < 100000; step++) id = parents.add(id, step % 7);
  const path = parents.pathTo(id, 5);
  assert.is(path.initialIndex, 2);
  assert.is(path.actionIndexes.length, 100001);
  assert.is(path.actionIndexes[0], 0);
  assert.is(path.actionIndexes.at(-1), 5);
  assert.throws(() => parents.parentOf(-3), /no state with id/);
  // One word a state (parent distance and action index), in chunks of 65,536 entries.
  assert.is(parents.bytes, 2 * 65536 * 4);
});

test('parent table: one word a state until an entry does not fit, then every entry kept', () => {
  const parents = new ParentTable();
  parents.add(-1, 3);
  for (let id = 1; id < 70000; id++) parents.add(id >> 1, id % 256);
  assert.is(parents.bytes, 2 * 65536 * 4);
  // A parent after its child (never in a search) has no distance to pack.
  parents.relink(10, 20, 7);
  assert.is(parents.bytes, 2 * 65536 * 5);
  for (const id of [1, 2, 255, 65535, 65536, 69999]) {
    assert.is(parents.parentOf(id), id >> 1);
    assert.is(parents.actionOf(id), id % 256);
  }
  assert.equal([parents.parentOf(10), parents.actionOf(10)], [20, 7]);
  assert.equal([parents.parentOf(0), parents.actionOf(0)], [-1, 3]);
});

test('parent table: a parent 2^24 ids back unpacks the table', () => {
  const parents = new ParentTable();
  const far = 2 ** 24;
  for (let id = 0; id < far; id++) parents.add(id - 1, 1);
  assert.is(parents.bytes, (far / 65536) * 65536 * 4);
  parents.add(0, 2);
  assert.is(parents.bytes, (far / 65536 + 1) * 65536 * 5);
  assert.equal([parents.parentOf(far), parents.actionOf(far)], [0, 2]);
  assert.equal([parents.parentOf(far - 1), parents.actionOf(far - 1)], [far - 2, 1]);
});

test('parent table: a larger action index widens every chunk, keeping the others', () => {
  const parents = new ParentTable();
  for (let id = 0; id < 70000; id++) parents.add(id - 1, id % 200);
  parents.add(5, 300);
  assert.is(parents.bytes, 2 * 65536 * 6);
  parents.add(6, 70000);
  assert.is(parents.bytes, 2 * 65536 * 8);
  for (const id of [0, 199, 65535, 65536, 69999]) {
    assert.is(parents.actionOf(id), id % 200);
    assert.is(parents.parentOf(id), id - 1);
  }
  assert.is(parents.actionOf(70000), 300);
  assert.is(parents.actionOf(70001), 70000);
  parents.relink(3, 1, 99);
  assert.equal([parents.parentOf(3), parents.actionOf(3)], [1, 99]);
  assert.throws(() => parents.add(0, -1), /action index -1/);
});

test('word writer strings and numbers round-trip', () => {
  const out = new WordWriter(1);
  out.pushString('héllo, wörld');
  out.pushString('');
  out.pushNumber(-1.5e300);
  const reader = new WordReader(out.words, 0, out.length);
  assert.is(reader.nextString(), 'héllo, wörld');
  assert.is(reader.nextString(), '');
  assert.is(reader.nextNumber(), -1.5e300);
});

test.run();
