// The WAL over the simulated disk: a crash loses exactly what was not synced, never part of a
// record; a property test against a sequential model of the storage. DESIGN §5.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LoadedState } from '../../impl/io/storage.js';
import type { Entry } from '../../spec/raft/types.js';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { MemoryDisk } from '../../impl/sim/memory-disk.js';
import { VirtualClock } from '../../impl/sim/virtual-clock.js';
import { entries, openWal, snapshotAt, type Command, type Data } from './wal-helpers.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a crash with no sync in flight loses exactly the unsynced suffix', async () => {
  for (let seed = 0; seed < 30; seed++) {
    const disk = new MemoryDisk(new SeededRandom(seed));
    const { storage } = openWal(disk.mount(), '/node', 200);
    await storage.load();
    storage.saveHardState({ currentTerm: 1, votedFor: 2, commitIndex: 0 });
    storage.appendEntries(1, entries(1, 10, 1));
    await storage.sync();
    storage.saveHardState({ currentTerm: 2, votedFor: null, commitIndex: 4 });
    storage.appendEntries(8, entries(8, 5, 2));
    disk.crash();
    const loaded = await openWal(disk.mount(), '/node', 200).storage.load();
    assert.equal(loaded.hardState, { currentTerm: 1, votedFor: 2, commitIndex: 0 }, `seed ${seed}`);
    assert.equal(loaded.entries, entries(1, 10, 1), `seed ${seed}`);
  }
});

test('a crash at any operation of a sync keeps whole records; tears reported', async () => {
  const expected = [...entries(1, 10, 1), ...entries(11, 8, 2)];
  const survivors = new Set<number>();
  let torn = 0;
  for (let operation = 1; operation <= 8; operation++) {
    for (let seed = 0; seed < 10; seed++) {
      const disk = new MemoryDisk(new SeededRandom(seed));
      const { storage } = openWal(disk.mount(), '/node', 300);
      await storage.load();
      storage.appendEntries(1, entries(1, 10, 1));
      await storage.sync();
      storage.appendEntries(11, entries(11, 8, 2));
      disk.crashBeforeOperation(operation);
      let completed = false;
      void storage.sync().then(() => (completed = true));
      await settle();
      if (completed) disk.crash();
      const reopened = openWal(disk.mount(), '/node', 300);
      const loaded = await reopened.storage.load();
      const count = loaded.entries.length;
      assert.ok(count >= 10 && count <= 18, `operation ${operation}, seed ${seed}: ${count}`);
      if (completed) assert.is(count, 18);
      assert.equal(loaded.entries, expected.slice(0, count));
      survivors.add(count);
      torn += reopened.events.filter((event) => event.kind === 'torn-tail').length;
    }
  }
  assert.ok(survivors.size >= 4, `only ${[...survivors]} entries ever survived`);
  assert.ok(torn > 0, 'no crash ever tore a record');
});

test('fsync latency on the virtual clock: a crash before a sync ends may lose it', async () => {
  const outcomes = new Set<string>();
  for (let seed = 0; seed < 12; seed++) {
    for (const crashAtMs of [1, 4, 100]) {
      const clock = new VirtualClock();
      // Every file or directory fsync takes 3 ms of simulated time.
      const disk = new MemoryDisk(new SeededRandom(seed), { syncDelay: () => clock.sleep(3) });
      const { storage } = openWal(disk.mount(), '/node');
      await storage.load();
      storage.appendEntries(1, entries(1, 3, 1));
      let synced = false;
      void storage.sync().then(() => (synced = true));
      clock.schedule(crashAtMs, () => {
        if (!synced) disk.crash();
      });
      await clock.runUntilSettled(200);
      // Repairing a torn tail fsyncs, which takes simulated time too.
      const loading = openWal(disk.mount(), '/node').storage.load();
      await clock.runUntilSettled(300);
      const loaded = await loading;
      assert.equal(loaded.entries, entries(1, loaded.entries.length, 1));
      outcomes.add(`${crashAtMs}ms: synced=${synced} entries=${loaded.entries.length}`);
    }
  }
  // The sync takes 6 ms: the segment's fsync, then its directory's. Until then a crash keeps
  // all, some or none of the batch's entries, as the seed decides, and never part of one.
  const crashed = [...outcomes].filter((outcome) => !outcome.startsWith('100ms'));
  assert.ok(crashed.every((outcome) => outcome.includes('synced=false')));
  assert.ok(crashed.some((outcome) => outcome.endsWith('entries=0')));
  assert.ok(crashed.some((outcome) => outcome.endsWith('entries=3')));
  assert.ok(outcomes.has('100ms: synced=true entries=3'));
  assert.not.ok(outcomes.has('100ms: synced=true entries=0'));
});

test('after a failed fsync every later sync and write fails too', async () => {
  const disk = new MemoryDisk(new SeededRandom(1));
  const mounted = disk.mount();
  let failSyncs = false;
  const failing: typeof mounted = {
    makeDirectory: (path) => mounted.makeDirectory(path),
    list: (directory) => mounted.list(directory),
    readFile: (path) => mounted.readFile(path),
    rename: (from, to) => mounted.rename(from, to),
    remove: (path) => mounted.remove(path),
    syncDirectory: (path) => mounted.syncDirectory(path),
    open: async (path, mode) => {
      const file = await mounted.open(path, mode);
      return {
        append: (bytes) => file.append(bytes),
        truncate: (length) => file.truncate(length),
        close: () => file.close(),
        sync: () => (failSyncs ? Promise.reject(new Error('EIO: fsync failed')) : file.sync()),
      };
    },
  };
  const { storage } = openWal(failing, '/node');
  await storage.load();
  storage.appendEntries(1, entries(1, 2, 1));
  await storage.sync();
  failSyncs = true;
  storage.appendEntries(3, entries(3, 1, 1));
  await storage.sync().then(() => assert.unreachable('the sync must fail'), (error) => {
    assert.match((error as Error).message, 'EIO');
  });
  failSyncs = false;
  await storage.sync().then(() => assert.unreachable('a later sync must fail too'), (error) => {
    assert.match((error as Error).message, 'EIO');
  });
  assert.throws(() => storage.appendEntries(4, entries(4, 1, 1)), /EIO/);
});

/** The storage as a sequential model: what load() must return after a clean shutdown. */
interface ModelState {
  readonly hardState: { currentTerm: number; votedFor: number | null; commitIndex: number };
  readonly snapshot: { lastIncludedIndex: number; lastIncludedTerm: number; data: Data } | null;
  /** Entries by index, the ones after the snapshot. */
  readonly log: ReadonlyMap<number, Entry<Command>>;
  /** As WalStorage counts it: the last entry, or the snapshot's index if later. */
  readonly lastIndex: number;
}

type Operation =
  | { kind: 'append'; back: number; count: number; term: number }
  | { kind: 'hardState'; term: number; vote: number | null }
  | { kind: 'snapshot'; delta: number }
  | { kind: 'sync' }
  | { kind: 'crash'; atOperation: number };

const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('append' as const), back: fc.nat(3), count: fc.nat(3), term: fc.nat(5),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('hardState' as const), term: fc.nat(5), vote: fc.option(fc.nat(2)),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('snapshot' as const), delta: fc.integer({ min: -3, max: 2 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'sync' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('crash' as const), atOperation: fc.nat(12) }),
  },
);

const snapshotIndexOf = (state: ModelState) => state.snapshot?.lastIncludedIndex ?? 0;

function modelAppend(state: ModelState, fromIndex: number, added: Entry<Command>[]): ModelState {
  const log = new Map([...state.log].filter(([index]) => index < fromIndex));
  added.forEach((entry, offset) => log.set(fromIndex + offset, entry));
  const lastIndex = added.length > 0 || fromIndex <= state.lastIndex
    ? fromIndex + added.length - 1
    : state.lastIndex;
  return { ...state, log, lastIndex };
}

function modelSnapshot(state: ModelState, index: number, term: number): ModelState {
  const log = new Map([...state.log].filter(([entryIndex]) => entryIndex > index));
  const lastIndex = Math.max(state.lastIndex, index);
  return { ...state, snapshot: snapshotAt(index, term), log, lastIndex };
}

function expectedLoad(state: ModelState): LoadedState<Command, Data> {
  const firstIndex = snapshotIndexOf(state) + 1;
  const loaded: Entry<Command>[] = [];
  for (let index = firstIndex; state.log.has(index); index++) loaded.push(state.log.get(index)!);
  return { hardState: state.hardState, snapshot: state.snapshot, entries: loaded, firstIndex };
}

async function runOperations(seed: number, segmentBytes: number, operations: Operation[]) {
  const disk = new MemoryDisk(new SeededRandom(seed));
  let { storage } = openWal(disk.mount(), '/node', segmentBytes);
  const initial: ModelState = {
    hardState: { currentTerm: 0, votedFor: null, commitIndex: 0 }, snapshot: null,
    log: new Map(), lastIndex: 0,
  };
  assert.equal(await storage.load(), expectedLoad(initial));
  let current = initial;
  /** The states a crash may leave: the last synced one and each one since, in call order. */
  let candidates: ModelState[] = [initial];
  for (const operation of operations) {
    if (operation.kind === 'append') {
      // Raft never cuts a committed entry (and load refuses a commit index beyond the log).
      const fromIndex = Math.max(snapshotIndexOf(current) + 1,
        current.hardState.commitIndex + 1, current.lastIndex + 1 - operation.back);
      const added = entries(fromIndex, operation.count, operation.term);
      storage.appendEntries(fromIndex, added);
      // A crash may keep the first entries of one call (one record each): a log prefix.
      for (let count = 1; count < added.length; count++) {
        candidates.push(modelAppend(current, fromIndex, added.slice(0, count)));
      }
      current = modelAppend(current, fromIndex, added);
    } else if (operation.kind === 'hardState') {
      const hardState = {
        currentTerm: operation.term, votedFor: operation.vote, commitIndex: current.lastIndex,
      };
      storage.saveHardState(hardState);
      current = { ...current, hardState };
    } else if (operation.kind === 'snapshot') {
      const index = Math.max(snapshotIndexOf(current), current.lastIndex + operation.delta);
      const term = current.log.get(index)?.term ?? 9;
      storage.saveSnapshot(snapshotAt(index, term));
      current = modelSnapshot(current, index, term);
    } else if (operation.kind === 'sync') {
      await storage.sync();
      candidates = [current];
      continue;
    } else {
      if (operation.atOperation > 0) disk.crashBeforeOperation(operation.atOperation);
      let completed = false;
      void storage.sync().then(() => (completed = true));
      await settle();
      if (completed) candidates = [current];
      disk.crash();
      ({ storage } = openWal(disk.mount(), '/node', segmentBytes));
      const loaded = await storage.load();
      const match = candidates.find((candidate) => {
        try {
          assert.equal(loaded, expectedLoad(candidate));
          return true;
        } catch {
          return false;
        }
      });
      const shown = JSON.stringify(loaded);
      assert.ok(match !== undefined, `load after a crash matches no prefix of the calls: ${shown}`);
      current = match;
      candidates = [current];
      continue;
    }
    candidates.push(current);
  }
}

test('property: appends, truncations, snapshots, syncs, crashes load a synced prefix', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.nat(1_000_000),
      fc.integer({ min: 40, max: 400 }),
      fc.array(operationArbitrary, { maxLength: 60 }),
      runOperations,
    ),
    { numRuns: 2000 },
  );
});

test.run();
