// The replay's adapters (impl/sim/replay): real node shells that take no step the replay did
// not schedule. A timer runs only when fired by name, a frame moves only when delivered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RuntimeDivergence } from '../../verify/replay/adapter.js';
import { ReplayCluster } from '../../verify/replay/replay-cluster.js';

const names = ['g1-0', 'g1-1', 'g1-2'];

async function startedCluster(): Promise<ReplayCluster> {
  const cluster = new ReplayCluster({
    layout: { shardCount: 1, controllers: [], groups: { 1: names } },
    tuning: { preVote: false, checkQuorum: false },
    bugs: {},
    adminName: 'admin',
  });
  for (const name of names) await cluster.start(name);
  return cluster;
}

test('started nodes wait: no frame in flight, only their election timers pending', async () => {
  const cluster = await startedCluster();
  await cluster.settle();
  assert.is(cluster.network.frames().length, 0);
  for (const name of names) {
    assert.ok(cluster.timers(name).isPending('raft-election'));
    assert.not.ok(cluster.timers(name).isPending('raft-heartbeat-soon'));
    assert.is(cluster.server(name).view()!.raft.role, 'follower');
  }
});

test('a fired election timeout makes a candidate whose vote requests wait for its heartbeat',
  async () => {
    // Raft §5.2: the candidate increments its term and votes for itself; the requests go out
    // when its heartbeat timer fires, to every peer, and stay held until delivered.
    const cluster = await startedCluster();
    assert.ok(cluster.timers('g1-0').fire('raft-election'));
    await cluster.settle();
    const candidate = cluster.server('g1-0').view()!.raft;
    assert.is(candidate.role, 'candidate');
    assert.is(candidate.currentTerm, 1);
    assert.is(cluster.network.frames().length, 0);
    assert.ok(cluster.timers('g1-0').fire('raft-heartbeat-soon'));
    await cluster.settle();
    const held = cluster.network.frames();
    assert.equal(held.map((frame) => frame.to), ['g1-1', 'g1-2']);
    assert.ok(held.every((frame) => frame.frame.kind === 'raft' &&
      frame.frame.message.type === 'RequestVoteRequest'));
    assert.is(cluster.server('g1-1').view()!.raft.currentTerm, 0);
    cluster.network.deliver(held[0]!);
    await cluster.settle();
    assert.is(cluster.server('g1-1').view()!.raft.currentTerm, 1);
    assert.is(cluster.server('g1-1').view()!.raft.votedFor, 0);
  });

test('a crash keeps what the node synced: the restarted node reloads its term and vote',
  async () => {
    const cluster = await startedCluster();
    cluster.timers('g1-2').fire('raft-election');
    await cluster.settle();
    cluster.crash('g1-2');
    await cluster.start('g1-2');
    const restarted = cluster.server('g1-2').view()!.raft;
    assert.is(restarted.currentTerm, 1);
    assert.is(restarted.votedFor, 2);
    assert.is(restarted.role, 'follower');
    const disk = await cluster.readDisk('g1-2');
    assert.equal(disk.hardState, { currentTerm: 1, votedFor: 2, commitIndex: 0 });
  });

test('settle returns only once a long chain of promises the nodes started has run', async () => {
  const cluster = await startedCluster();
  let steps = 0;
  void (async () => {
    for (let step = 0; step < 1000; step++) {
      await Promise.resolve();
      steps++;
    }
  })();
  await cluster.settle();
  assert.is(steps, 1000);
});

test('a malformed frame is a divergence when read, and when its receiver refuses it',
  async () => {
    const cluster = await startedCluster();
    cluster.network.endpoint('g1-0').send('g1-1', new Uint8Array([9, 9, 9]));
    const [held] = cluster.network.frames();
    assert.throws(() => held!.frame, (error: unknown) => error instanceof RuntimeDivergence &&
      /g1-0 sent a malformed frame to g1-1/.test(error.message));
    assert.throws(() => cluster.network.deliver(held!),
      (error: unknown) => error instanceof RuntimeDivergence);
    assert.is(cluster.network.frames().length, 0);
  });

test.run();
