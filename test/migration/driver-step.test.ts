// The driver's step function as the runtime will call it (issue 9, items 6 and 7): a tiny
// world of a controller state machine and groups, where the harness below only delivers what
// stepDriver returns (sends to groups, proposals to the controller's log) and feeds the
// results back. It decides nothing: a driver that restarts mid-way finishes from `next` and
// the groups' facts, and leaving every group then joining one moves the data from where it
// waited.
import { unboundedSizes } from '../../spec/group/size-policy.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  applyControllerCommand,
  applyOperation,
  initialControllerState,
  type ControllerCommand,
  type ControllerOperation,
  type ControllerState,
} from '../../spec/controller/index.js';
import {
  applyGroupCommand,
  BTreeMap,
  emptyGroup,
  type EmptyMaps,
  type GroupState,
} from '../../spec/group/index.js';
import {
  idleDriver,
  noMigrationBugs,
  stepDriver,
  type DriverInput,
  type DriverState,
  type Send,
} from '../../spec/migration/index.js';

interface World {
  controller: ControllerState;
  driver: DriverState;
  groups: GroupState[];
}

/**
 * The runtime's part: one input at a time into stepDriver, then its effects in order (the
 * controller applies each proposal, groups apply each send), each result queued as an input.
 */
function perform(world: World, first: DriverInput, inputsMax = 200): void {
  const queue: DriverInput[] = [first];
  for (let index = 0; index < queue.length; index++) {
    assert.ok(index < inputsMax, 'the driver does not settle');
    const step = stepDriver(world.controller, world.driver, queue[index]!);
    world.driver = step.driver;
    for (const proposal of step.proposals) queue.push(propose(world, proposal));
    queue.push(...deliverAll(world, step.sends));
  }
}

function propose(world: World, command: ControllerCommand): DriverInput {
  const applied = applyControllerCommand(world.controller, command);
  world.controller = applied.state;
  return { type: 'applied', result: applied.result };
}

/** Delivers sends; each answer goes back as the reply of the group that gave it. */
function deliverAll(world: World, sends: readonly Send[]): DriverInput[] {
  return sends.map((send) => {
    const applied = applyGroupCommand(world.groups[send.to - 1]!, send.command, noMigrationBugs,
      unboundedSizes);
    world.groups[send.to - 1] = applied.state;
    return { type: 'reply', from: send.to, command: send.command, result: applied.result };
  });
}

function admin(world: World, operation: ControllerOperation): void {
  world.controller = applyOperation(world.controller, operation).state;
}

function newWorld(): World {
  const maps: EmptyMaps = { kv: BTreeMap.empty(), dedup: BTreeMap.empty() };
  const groups = [1, 2].map((gid) => emptyGroup(gid, 2, maps));
  return { controller: initialControllerState(2), driver: idleDriver, groups };
}

const put = (world: World, gid: number, client: number, key: string, value: string) => {
  const request = { client, seq: 0, op: 'put', key, value } as const;
  const applied = applyGroupCommand(world.groups[gid - 1]!, { type: 'client', request },
    noMigrationBugs, unboundedSizes);
  world.groups[gid - 1] = applied.state;
  return applied.result;
};

const phases = (world: World) =>
  world.groups.map((group) => group.shards.map((record) => record.phase));

test('start, join, publish: the driver proposes the plan, moves shards, proposes publish', () => {
  const world = newWorld();
  admin(world, { type: 'join', groups: { 1: ['g1-0'] } });
  perform(world, { type: 'start' });
  assert.is(world.controller.current, 1);
  assert.equal(phases(world), [['serving', 'serving'], ['absent', 'absent']]);
  assert.equal(put(world, 1, 1, 'c', 'x'), { type: 'ok' });
  admin(world, { type: 'join', groups: { 2: ['g2-0'] } });
  perform(world, { type: 'tick' });
  assert.is(world.controller.current, 2);
  assert.equal(phases(world), [['serving', 'absent'], ['absent', 'serving']]);
  assert.is(world.groups[1]!.shards[1]!.kv.get('c'), 'x');
});

test('a driver that restarts after any step finishes the move from next and facts only', () => {
  for (let crashAfter = 0; crashAfter < 4; crashAfter++) {
    const world = newWorld();
    admin(world, { type: 'join', groups: { 1: ['g1-0'] } });
    perform(world, { type: 'start' });
    put(world, 1, 1, 'c', 'x');
    admin(world, { type: 'join', groups: { 2: ['g2-0'] } });
    // The old leader proposes the plan and performs `crashAfter` of its sends, then is gone.
    const tick = stepDriver(world.controller, world.driver, { type: 'tick' });
    let input = propose(world, tick.proposals[0]!);
    for (let sent = 0; sent <= crashAfter; sent++) {
      const step = stepDriver(world.controller, world.driver, input);
      world.driver = step.driver;
      const [next] = deliverAll(world, step.sends);
      if (next === undefined) break;
      input = next;
    }
    world.driver = idleDriver;
    const restarted = stepDriver(world.controller, world.driver, { type: 'start' });
    assert.ok(restarted.sends.every((send) => send.command.type === 'query-shard'));
    perform(world, { type: 'start' });
    assert.is(world.controller.current, 2, `crash after ${crashAfter} sends`);
    assert.is(world.controller.next, null);
    assert.equal(phases(world), [['serving', 'absent'], ['absent', 'serving']]);
    assert.is(world.groups[1]!.shards[1]!.kv.get('c'), 'x', `crash after ${crashAfter}`);
  }
});

test('leave every group, then join another: no wedge, and the data moves from its holder', () => {
  const world = newWorld();
  admin(world, { type: 'join', groups: { 1: ['g1-0'] } });
  perform(world, { type: 'start' });
  put(world, 1, 1, 'b', 'y');
  put(world, 1, 2, 'c', 'x');
  admin(world, { type: 'leave', gids: [1] });
  perform(world, { type: 'tick' });
  assert.is(world.controller.current, 2, 'the unassigning configuration is published');
  assert.equal(phases(world), [['frozen', 'frozen'], ['absent', 'absent']]);
  assert.equal(put(world, 1, 3, 'c', 'z'), { type: 'error', error: 'ErrWrongGroup' });
  admin(world, { type: 'join', groups: { 2: ['g2-0'] } });
  perform(world, { type: 'tick' });
  assert.is(world.controller.current, 3);
  assert.equal(phases(world), [['absent', 'absent'], ['serving', 'serving']]);
  assert.is(world.groups[1]!.shards[0]!.kv.get('b'), 'y');
  assert.is(world.groups[1]!.shards[1]!.kv.get('c'), 'x');
  const moved = world.groups[1];
  assert.equal(put(world, 2, 2, 'c', 'x'), { type: 'ok' });
  assert.is(world.groups[1], moved, 'dedup moved too: the retry is answered, not applied');
});

test('beliefs about an earlier intent are dropped, never used for the next one', () => {
  const world = newWorld();
  admin(world, { type: 'join', groups: { 1: ['g1-0'] } });
  perform(world, { type: 'start' });
  admin(world, { type: 'join', groups: { 2: ['g2-0'] } });
  admin(world, { type: 'leave', gids: [2] });
  perform(world, { type: 'tick' });
  assert.is(world.controller.current, 3);
  // A driver that believed every move of intent 2 done, shown a controller whose next is 4
  // (publish and plan applied before it saw them), asks the groups instead of publishing.
  const stale = { num: 2, progress: [{ step: 'done' as const }] };
  admin(world, { type: 'move', shard: 0, gid: 1 });
  admin(world, { type: 'join', groups: { 2: ['g2-0'] } });
  world.controller = applyControllerCommand(world.controller, { type: 'plan', num: 4 }).state;
  assert.is(world.controller.next?.moves.length, 1);
  const step = stepDriver(world.controller, stale, { type: 'tick' });
  assert.equal(step.proposals, []);
  assert.equal(step.driver,
    { num: 4, progress: [{ step: 'recover', srcFacts: null, dstFacts: null }] });
  assert.ok(step.sends.length > 0 && step.sends.every((send) =>
    send.command.type === 'query-shard'));
});

// The groups answer a recovering driver separately, in any order: the driver keeps each
// answer (the runtime's host only delivers them) and resumes once src and dst both answered.
test('facts answers, in either order, are paired by the driver; a tick asks both again', () => {
  for (const order of [[1, 2], [2, 1]]) {
    const world = newWorld();
    admin(world, { type: 'join', groups: { 1: ['g1-0'] } });
    perform(world, { type: 'start' });
    admin(world, { type: 'join', groups: { 2: ['g2-0'] } });
    const tick = stepDriver(world.controller, world.driver, { type: 'tick' });
    const applied = propose(world, tick.proposals[0]!);
    world.driver = stepDriver(world.controller, world.driver, applied).driver;
    const queries = stepDriver(world.controller, world.driver, { type: 'tick' }).sends;
    assert.equal(queries.map((send) => send.to), [1, 2]);
    const [first, second] = order.map((gid) => queries.find((send) => send.to === gid)!);
    const half = stepDriver(world.controller, world.driver, deliverAll(world, [first!])[0]!);
    assert.equal(half.sends, [], 'the other query is out already');
    assert.is(half.driver.progress[0]!.step, 'recover');
    world.driver = half.driver;
    // As the runtime's driver always did: the answered group is asked again (a newer answer
    // replaces the first), the other one is still asked.
    assert.equal(stepDriver(world.controller, world.driver, { type: 'tick' }).sends, queries);
    const whole = stepDriver(world.controller, world.driver, deliverAll(world, [second!])[0]!);
    assert.equal(whole.driver.progress.map((progress) => progress.step), ['freeze']);
    assert.equal(whole.sends.map((send) => [send.to, send.command.type]), [[1, 'freeze']]);
    // A late repeat of an answer after the shard resumed changes nothing.
    const late = deliverAll(world, [first!])[0]!;
    assert.equal(stepDriver(world.controller, whole.driver, late),
      { driver: whole.driver, sends: [], proposals: [] });
  }
});

test('a move back to the group that kept the shard asks it for its facts once', () => {
  const world = newWorld();
  admin(world, { type: 'join', groups: { 1: ['g1-0'] } });
  perform(world, { type: 'start' });
  admin(world, { type: 'leave', gids: [1] });
  perform(world, { type: 'tick' });
  admin(world, { type: 'join', groups: { 1: ['g1-0'] } });
  const tick = stepDriver(world.controller, world.driver, { type: 'tick' });
  const applied = propose(world, tick.proposals[0]!);
  world.driver = stepDriver(world.controller, world.driver, applied).driver;
  assert.ok(world.controller.next!.moves.every((move) => move.src === 1 && move.dst === 1));
  const queries = stepDriver(world.controller, world.driver, { type: 'tick' }).sends;
  assert.equal(queries.map((send) => [send.to, send.command]),
    [[1, { type: 'query-shard', shard: 0 }], [1, { type: 'query-shard', shard: 1 }]]);
  perform(world, { type: 'tick' });
  assert.is(world.controller.current, 3);
  assert.equal(phases(world), [['serving', 'serving'], ['absent', 'absent']]);
});

test('a tick with nothing to do sends nothing and proposes nothing', () => {
  const world = newWorld();
  assert.equal(stepDriver(world.controller, world.driver, { type: 'tick' }),
    { driver: world.driver, sends: [], proposals: [] });
});

test.run();
