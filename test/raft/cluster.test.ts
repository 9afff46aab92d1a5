// Three Raft nodes with string commands, driven only through `step` (no model code): a small
// in-memory network, disk and application written here. Elections, a replicated batch, a
// crash and a restart from nothing but what the save effects wrote, a snapshot of application
// data installed on a lagging follower, and a ReadIndex read (Raft paper §5, §7; dissertation
// §6.4).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialNode, persistedLog, step } from '../../spec/raft/index.js';
import { logEntriesArray } from '../../spec/raft/log-entries.js';
import { applySave, logDurableInput, mustReport } from '../../spec/raft/persistence.js';
import type {
  Effect,
  Input,
  Message,
  Persisted,
  RaftNode,
  RaftOptions,
  SaveEffect,
} from '../../spec/raft/types.js';

type Command = string;
/** The application's state: the commands applied so far, in order. */
type Data = readonly string[];

/**
 * A disk in memory that syncs at once: each save means what spec/raft's applySave says, and
 * after a step that saved a leader's own append the storage reports it durable at once.
 */
class MemoryStorage {
  private persisted: Persisted<Command, Data> = {
    hardState: { currentTerm: 0, votedFor: null, commitIndex: 0 },
    snapshot: null,
    entries: [],
  };
  writes = 0;

  save(effect: SaveEffect<Command, Data>): void {
    this.persisted = applySave(this.persisted, effect);
    this.writes++;
  }
  load(): Persisted<Command, Data> {
    return structuredClone(this.persisted);
  }
  storedEntries(): number {
    return this.persisted.entries.length;
  }
}

interface Server {
  node: RaftNode<Command, Data> | null;
  readonly storage: MemoryStorage;
  applied: string[];
  appliedIndex: number;
  readonly reads: Map<number, string[]>;
}

interface Envelope {
  readonly from: number;
  readonly to: number;
  readonly message: Message<Command, Data>;
}

class Cluster {
  readonly servers: Server[] = [];
  network: Envelope[] = [];
  readonly pendingReads = new Map<string, number>();

  constructor(
    size: number,
    readonly options: RaftOptions,
  ) {
    for (let id = 0; id < size; id++) {
      const storage = new MemoryStorage();
      const node = initialNode<Command, Data>(id, size);
      this.servers.push({ node, storage, applied: [], appliedIndex: 0, reads: new Map() });
    }
  }

  node(id: number): RaftNode<Command, Data> {
    const node = this.servers[id]!.node;
    assert.ok(node, `s${id + 1} is up`);
    return node;
  }

  /**
   * One input to one node; its effects performed in order, saves first; when it saved a
   * leader's own append, the storage's report (the disk is synced at once) is stepped too.
   */
  run(id: number, input: Input<Command, Data>): readonly Effect<Command, Data>[] {
    const server = this.servers[id]!;
    const result = step(this.node(id), input, this.options);
    server.node = result.node;
    let savesOver = false;
    for (const effect of result.effects) {
      const save = effect.type.startsWith('save');
      assert.ok(!save || !savesOver, `a save after another effect: ${effect.type}`);
      if (!save) savesOver = true;
      this.perform(server, id, effect);
    }
    if (mustReport(result.effects)) {
      const durable = logDurableInput(persistedLog(server.storage.load()));
      this.run(id, durable as Input<Command, Data>);
    }
    return result.effects;
  }

  private perform(server: Server, id: number, effect: Effect<Command, Data>): void {
    switch (effect.type) {
      case 'saveHardState':
      case 'saveEntries':
      case 'saveSnapshot':
        return server.storage.save(effect);
      case 'send':
        this.network.push({ from: id, to: effect.to, message: effect.message });
        return;
      case 'restoreSnapshot':
        server.applied = [...effect.snapshot.data];
        server.appliedIndex = effect.snapshot.lastIncludedIndex;
        return;
      case 'apply':
        for (const entry of effect.entries) {
          assert.is(entry.index, server.appliedIndex + 1, 'entries apply in order, once');
          if (entry.command !== null) server.applied.push(entry.command);
          server.appliedIndex = entry.index;
        }
        return;
      case 'readReady':
        // The application serves the read once it has applied the read index.
        assert.ok(server.appliedIndex >= effect.index, 'applied before the read is served');
        server.reads.set(effect.requestId, [...server.applied]);
        return;
      case 'readRefused':
        throw new Error(`read ${effect.requestId} refused by s${id + 1}`);
      case 'setTimer':
      case 'cancelTimer':
      case 'sendSoon':
      case 'proposed':
      case 'proposalRefused':
      case 'leadershipLost':
      case 'leaderReady':
        return;
    }
  }

  /** Delivers every message, and those they cause, to the nodes that are up. */
  deliverAll(): void {
    for (let deliveries = 0; this.network.length > 0; deliveries++) {
      assert.ok(deliveries < 1000, 'the network settles');
      const [envelope, ...rest] = this.network;
      this.network = rest;
      if (this.servers[envelope!.to]!.node === null) continue;
      this.run(envelope!.to, { type: 'message', from: envelope!.from, message: envelope!.message });
    }
  }

  /** A heartbeat round from `id` to every peer, delivered. */
  round(id: number): void {
    this.run(id, { type: 'heartbeat' });
    this.deliverAll();
  }

  crash(id: number): void {
    const server = this.servers[id]!;
    server.node = null;
    server.applied = [];
    server.appliedIndex = 0;
  }

  /** Restart from exactly what the storage holds. */
  restart(id: number): void {
    const server = this.servers[id]!;
    server.node = initialNode<Command, Data>(id, this.servers.length);
    this.run(id, { type: 'restart', persisted: server.storage.load() });
  }
}

/** §5.2: s1's election timer fires; one round of vote requests elects it; its no-op commits. */
function electFirst(cluster: Cluster): void {
  cluster.run(0, { type: 'electionTimeout' });
  cluster.round(0);
  assert.is(cluster.node(0).role, 'leader');
  assert.equal(logEntriesArray(cluster.node(0).log), [{ term: 1, command: null }]);
  cluster.round(0);
  assert.is(cluster.node(0).commitIndex, 1);
}

/** A batch of commands: one step, one write of three entries, one AppendEntries per peer. */
function replicateBatch(cluster: Cluster): void {
  const writes = cluster.servers[0]!.storage.writes;
  const proposed = cluster.run(0, { type: 'propose', commands: ['x=1', 'y=2', 'z=3'] });
  assert.equal(proposed[0], {
    type: 'saveEntries',
    fromIndex: 2,
    entries: [
      { term: 1, command: 'x=1' },
      { term: 1, command: 'y=2' },
      { term: 1, command: 'z=3' },
    ],
    sync: 'thenReport',
  });
  assert.is(cluster.servers[0]!.storage.writes, writes + 1);
  const sent = cluster.run(0, { type: 'heartbeat' });
  const batchSizes = sent.map((effect) =>
    effect.type === 'send' && effect.message.type === 'AppendEntriesRequest'
      ? effect.message.entries.length
      : -1,
  );
  assert.equal(batchSizes, [3, 3]);
  cluster.deliverAll();
  cluster.round(0);
  for (const server of cluster.servers) assert.equal(server.applied, ['x=1', 'y=2', 'z=3']);
}

test('three nodes: election, a batch, a crash and restart, a snapshot, a read', () => {
  const cluster = new Cluster(3, { maxEntriesPerAppend: 8 });
  electFirst(cluster);
  replicateBatch(cluster);

  // s3 crashes; the others go on and commit more without it.
  cluster.crash(2);
  cluster.run(0, { type: 'propose', commands: ['w=4'] });
  cluster.round(0);
  cluster.round(0);
  assert.is(cluster.node(0).commitIndex, 5);
  assert.equal(cluster.servers[1]!.applied, ['x=1', 'y=2', 'z=3', 'w=4']);

  // §7: s1's application snapshots its state; s1 keeps no entry at or below it.
  const leader = cluster.servers[0]!;
  cluster.run(0, { type: 'snapshot', index: leader.appliedIndex, data: [...leader.applied] });
  assert.is(leader.storage.storedEntries(), 0);
  assert.equal(logEntriesArray(cluster.node(0).log), []);

  // s3 restarts from its disk alone: term, vote, commit index and entries come back.
  cluster.restart(2);
  assert.is(cluster.node(2).currentTerm, 1);
  assert.is(cluster.node(2).votedFor, 0);
  assert.equal(cluster.servers[2]!.applied, ['x=1', 'y=2', 'z=3']);

  // Entry 5 is compacted at s1: s3 gets the snapshot, and its application the data.
  const installed = cluster.run(0, { type: 'heartbeat', peer: 2 });
  assert.is(installed[0]?.type === 'send' && installed[0].message.type, 'InstallSnapshotRequest');
  cluster.deliverAll();
  assert.equal(cluster.servers[2]!.applied, ['x=1', 'y=2', 'z=3', 'w=4']);
  assert.is(cluster.servers[2]!.appliedIndex, 5);

  // §6.4: a read waits for a heartbeat round, then is served at the commit index.
  const read = cluster.run(0, { type: 'readIndex', requestId: 7 });
  assert.ok(read.every((effect) => effect.type !== 'readReady'), 'no read before the round');
  cluster.round(0);
  assert.equal(leader.reads.get(7), ['x=1', 'y=2', 'z=3', 'w=4']);

  // s2 restarts too: its application is rebuilt from the saved commit index and entries.
  cluster.crash(1);
  cluster.restart(1);
  assert.equal(cluster.servers[1]!.applied, ['x=1', 'y=2', 'z=3', 'w=4']);
});

test('a new leader after a crash: its no-op commits the entries of the old term (§6.4)', () => {
  const cluster = new Cluster(3, {});
  cluster.run(0, { type: 'electionTimeout' });
  cluster.round(0);
  cluster.round(0);
  cluster.run(0, { type: 'propose', commands: ['a'] });
  // s2 stores the entry, but s1 crashes before anyone learns it committed.
  cluster.run(0, { type: 'heartbeat', peer: 1 });
  const [request] = cluster.network;
  cluster.network = [];
  cluster.run(1, { type: 'message', from: 0, message: request!.message });
  cluster.network = [];
  cluster.crash(0);
  cluster.run(1, { type: 'electionTimeout' });
  cluster.round(1);
  assert.is(cluster.node(1).role, 'leader');
  const commands = logEntriesArray(cluster.node(1).log).map((entry) => entry.command);
  assert.equal(commands, [null, 'a', null]);
  // One entry per request (the default): s3 needs the hint, entries 2 and 3, then the commit.
  for (let rounds = 0; rounds < 4; rounds++) cluster.round(1);
  assert.is(cluster.node(1).commitIndex, 3);
  assert.equal(cluster.servers[1]!.applied, ['a']);
  assert.equal(cluster.servers[2]!.applied, ['a']);
});

test.run();
