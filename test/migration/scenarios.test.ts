// Golden scenarios of the migration protocol (issue 5, item 6; DESIGN §3): exact values,
// receipts and errors. Configuration 1 is the initial join(g1), so the first move of a shard
// happens at epoch 2 and the move back at epoch 3.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { joinConfig, leaveConfig } from '../../spec/controller/index.js';
import { restartDriver, type Send } from '../../spec/migration/index.js';
import {
  imageDigest,
  requestDigest,
  SortedArrayMap,
  type ClientRequest,
  type Identity,
  type Receipt,
} from '../../spec/group/index.js';
import {
  deliver,
  entriesOf,
  driveToPublish,
  plan,
  publish,
  recordConfig,
  startWorld,
  step,
  type World,
} from './harness.js';

// With two shards, key 'c' (99) is in shard 1, the shard that join(g2) moves to g2.
const moveOut: Identity = { shard: 1, epoch: 2, src: 1, dst: 2 };
const moveBack: Identity = { shard: 1, epoch: 3, src: 2, dst: 1 };

function joined(): World {
  const world = startWorld(2, 2);
  const two = joinConfig(world.controller.configs[1]!, { 2: ['g2-0'] });
  assert.ok(two.ok);
  return recordConfig(world, two.value);
}

const clientSend = (to: number, request: ClientRequest): Send =>
  ({ to, command: { type: 'client', request } });
const wrongGroup = { type: 'error', error: 'ErrWrongGroup' };
const appendX: ClientRequest = { client: 1, seq: 0, op: 'append', key: 'c', value: 'x' };
const putP: ClientRequest = { client: 2, seq: 0, op: 'put', key: 'c', value: 'p' };

test('(a) append applied once at src, reply lost; retry at dst returns the first result', () => {
  let world = joined();
  const applied = deliver(world, clientSend(1, appendX));
  assert.equal(applied.result, { type: 'ok' }); // the reply is lost
  world = plan(applied.world);
  assert.equal(world.controller.next, { num: 2, moves: [moveOut] });
  world = step(world, 0); // freeze at g1
  const kv = SortedArrayMap.fromSorted(['c'], ['x']);
  const dedup = SortedArrayMap.fromSorted([1], [
    { client: 1, seq: 0, digest: requestDigest(appendX), result: 'ok' as const },
  ]);
  const image = { kv, dedup, sessionFloor: 0, digest: imageDigest(kv, dedup) };
  assert.equal(world.driver.progress[0], { step: 'install', image });
  const install = { to: 2, command: { type: 'install', identity: moveOut, image } } as const;
  world = step(world, 0); // install at g2
  const receipt = { identity: moveOut, digest: image.digest };
  assert.equal(world.driver.progress[0], { step: 'delete', receipt });
  const put = deliver(world, clientSend(2, putP));
  assert.equal(put.result, { type: 'ok' });
  world = put.world;
  const duplicate = deliver(world, install);
  assert.equal(duplicate.result, { type: 'receipt', receipt });
  assert.is(duplicate.world.groups[1], world.groups[1]);
  world = publish(step(world, 0));
  const retry = deliver(world, clientSend(2, appendX));
  assert.equal(retry.result, { type: 'ok' });
  assert.is(retry.world.groups[1], world.groups[1], 'answered from the record, not applied');
  assert.equal(entriesOf(retry.world.groups[1]!.shards[1]!.kv), [['c', 'p']]);
  assert.equal(deliver(world, clientSend(1, appendX)).result, wrongGroup);
});

test('(b) A -> B then B -> A: late messages of the first move change nothing', () => {
  let world = plan(joined());
  const late: Send[] = [];
  for (let steps = 0; steps < 3; steps++) {
    late.push(...(world.driver.progress[0]!.step === 'done' ? [] : sendsOf(world)));
    world = step(world, 0);
  }
  world = publish(world);
  assert.equal(late.map((send) => [send.to, send.command.type]),
    [[1, 'freeze'], [2, 'install'], [1, 'delete']]);
  const three = leaveConfig(world.controller.configs[2]!, [2]);
  assert.ok(three.ok);
  world = plan(recordConfig(world, three.value));
  assert.equal(world.controller.next, { num: 3, moves: [moveBack] });
  world = driveToPublish(world);
  assert.is(world.controller.current, 3);
  for (const send of late) {
    const delivered = deliver(world, send);
    assert.equal(delivered.result, { type: 'error', error: 'stale-epoch' }, send.command.type);
    assert.is(delivered.world.groups[send.to - 1], world.groups[send.to - 1]);
  }
  assert.is(world.groups[0]!.shards[1]!.phase, 'serving');
  assert.is(world.groups[1]!.shards[1]!.phase, 'absent');
  assert.equal(world.groups[1]!.shards[1]!.tombstone, moveBack);
});

function sendsOf(world: World): Send[] {
  const progress = world.driver.progress[0]!;
  const identity = world.controller.next!.moves[0]!;
  if (progress.step === 'freeze') return [{ to: 1, command: { type: 'freeze', identity } }];
  if (progress.step === 'install') {
    return [{ to: 2, command: { type: 'install', identity, image: progress.image } }];
  }
  if (progress.step === 'delete') {
    return [{ to: 1, command: { type: 'delete', identity, receipt: progress.receipt } }];
  }
  return [];
}

test("(c) delete before dst's receipt is rejected; both groups unchanged", () => {
  let world = deliver(joined(), clientSend(1, appendX)).world;
  world = step(plan(world), 0); // frozen at g1, not installed at g2
  const deleteWith = (receipt: Receipt | null) =>
    deliver(world, { to: 1, command: { type: 'delete', identity: moveOut, receipt } });
  const withoutReceipt = deleteWith(null);
  assert.equal(withoutReceipt.result, { type: 'error', error: 'no-receipt' });
  const otherReceipt = { identity: { ...moveOut, shard: 0 }, digest: '0' };
  const withOther = deleteWith(otherReceipt);
  assert.equal(withOther.result, { type: 'error', error: 'no-receipt' });
  for (const attempt of [withoutReceipt, withOther]) {
    assert.is(attempt.world.groups[0], world.groups[0]);
    assert.is(attempt.world.groups[1], world.groups[1]);
  }
  assert.is(world.groups[0]!.shards[1]!.phase, 'frozen');
  assert.equal(entriesOf(world.groups[0]!.shards[1]!.kv), [['c', 'x']]);
  assert.is(world.groups[1]!.shards[1]!.phase, 'absent');
});

test('(d) crash after freeze, install, delete, publish: recovery completes the migration', () => {
  const start = plan(deliver(joined(), clientSend(1, appendX)).world);
  const reference = driveToPublish(start);
  assert.is(reference.controller.current, 2);
  assert.is(reference.controller.next, null);
  assert.equal(entriesOf(reference.groups[1]!.shards[1]!.kv), [['c', 'x']]);
  assert.equal(reference.groups[0]!.shards[1]!.tombstone, moveOut);
  const expectedRecovery = ['freeze', 'delete', 'done'];
  for (let crashAfter = 1; crashAfter <= 3; crashAfter++) {
    let world = start;
    for (let steps = 0; steps < crashAfter; steps++) world = step(world, 0);
    world = { ...world, driver: restartDriver(world.controller) };
    assert.equal(world.driver.progress, [{ step: 'recover', srcFacts: null, dstFacts: null }]);
    world = step(world, 0);
    const recovered = world.driver.progress[0]!.step;
    assert.is(recovered, expectedRecovery[crashAfter - 1], `after step ${crashAfter}`);
    world = driveToPublish(world);
    assert.equal(world.controller, reference.controller, `controller, crash at ${crashAfter}`);
    assert.equal(world.groups, reference.groups, `groups after crash at step ${crashAfter}`);
  }
  const afterPublish = { ...reference, driver: restartDriver(reference.controller) };
  assert.equal(afterPublish.driver.progress, []);
  assert.throws(() => plan(afterPublish), /nothing to plan/);
});

test.run();
