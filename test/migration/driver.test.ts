// The migration driver (DESIGN §3): planning one configuration at a time (the controller's
// plan command), replies, recovery from the groups' facts, publication.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  applyControllerCommand,
  initialConfig,
  joinConfig,
  moveConfig,
  noControllerBugs,
  planMoves,
  type Config,
  type ControllerState,
} from '../../spec/controller/index.js';
import {
  driverSends,
  handleReply,
  noMigrationBugs,
  readyToPublish,
  recoverShard,
  reportFacts,
  restartDriver,
  type DriverState,
} from '../../spec/migration/index.js';
import {
  imageDigest,
  SortedArrayMap,
  type Identity,
  type ShardFacts,
} from '../../spec/group/index.js';

const zero = initialConfig(3);
const join = (latest: Config, gid: number): Config => {
  const result = joinConfig(latest, { [gid]: [`g${gid}-0`] });
  if (!result.ok) throw new Error(result.error);
  return result.value;
};
const one = join(zero, 1);
const two = join(one, 2);
const three = join(two, 3);
const controllerOf = (configs: Config[], current: number): ControllerState =>
  ({ configs, sessions: {}, current, next: null, nextClient: 0 });

/** The beliefs once every moved shard's groups reported that nothing has moved yet. */
function recoveredFresh(controller: ControllerState): DriverState {
  let driver = restartDriver(controller);
  controller.next?.moves.forEach((move, index) => {
    const src = move.src === 0 ? null : facts({ phase: 'serving' });
    const dst = move.dst === 0 ? null : facts({});
    driver = recoverShard(controller, driver, index, src, dst, noMigrationBugs)!.driver;
  });
  return driver;
}

function planned(configs: Config[], current: number, bugs = noControllerBugs) {
  const command = { type: 'plan', num: current + 1 } as const;
  const applied = applyControllerCommand(controllerOf(configs, current), command, bugs);
  const driver = recoveredFresh(applied.state);
  return { controller: applied.state, result: applied.result, driver };
}

test('planMoves: one identity per moved shard, epoch = the new configuration number', () => {
  assert.equal(planMoves([zero, one], 0, 1),
    [0, 1, 2].map((shard) => ({ shard, epoch: 1, src: 0, dst: 1 })));
  assert.equal(planMoves([zero, one, two], 1, 2), [{ shard: 2, epoch: 2, src: 1, dst: 2 }]);
});

// CONTRACT: leaving every group unassigns the shards; their data stays, frozen, at the last
// holder, and a later configuration moves it from there.
test('planMoves: unassigning freezes at the holder; reassigning moves from the last holder', () => {
  const none: Config = { num: 2, shards: [0, 0, 0], groups: {} };
  assert.equal(planMoves([zero, one, none], 1, 2),
    [0, 1, 2].map((shard) => ({ shard, epoch: 2, src: 1, dst: 0 })));
  const back: Config = { num: 3, shards: [2, 2, 1], groups: { 1: ['a'], 2: ['b'] } };
  assert.equal(planMoves([zero, one, none, back], 2, 3), [
    { shard: 0, epoch: 3, src: 1, dst: 2 },
    { shard: 1, epoch: 3, src: 1, dst: 2 },
    { shard: 2, epoch: 3, src: 1, dst: 1 },
  ]);
});

test('plan: N -> N+1 only, a repeat returns the intent, never over another next', () => {
  const first = planned([zero, one, two, three], 1);
  const moved = { shard: 2, epoch: 2, src: 1, dst: 2 };
  assert.equal(first.result, { type: 'planned', next: { num: 2, moves: [moved] } });
  assert.equal(first.driver, { num: 2, progress: [{ step: 'freeze' }] });
  const repeat = applyControllerCommand(first.controller, { type: 'plan', num: 2 });
  assert.is(repeat.state, first.controller);
  assert.equal(repeat.result, first.result);
  const over = applyControllerCommand(first.controller, { type: 'plan', num: 3 });
  assert.equal(over.result, { type: 'refused', error: 'plan: configuration 2 is in flight' });
  const skipping = applyControllerCommand(controllerOf([zero, one, two, three], 1),
    { type: 'plan', num: 3 });
  assert.equal(skipping.result, { type: 'refused', error: 'plan: 3 is not current + 1 = 2' });
  assert.equal(planned([zero, one], 1).result,
    { type: 'refused', error: 'plan: no configuration 2 recorded' });
});

test('skip-config: the controller plans straight to the newest, over an in-flight next', () => {
  const bugs = { ...noControllerBugs, 'skip-config': true };
  assert.is(planned([zero, one, two, three], 1, bugs).controller.next?.num, 3);
  const inFlight = planned([zero, one, two, three], 1).controller;
  const skipped = applyControllerCommand(inFlight, { type: 'plan', num: 2 }, bugs);
  assert.is(skipped.state.next?.num, 3);
});

test('publish: only the configuration in flight; current := num, next cleared', () => {
  const { controller } = planned([zero, one, two], 1);
  const wrong = applyControllerCommand(controller, { type: 'publish', num: 3 });
  const error = 'publish: configuration 3 is not the one in flight';
  assert.equal(wrong.result, { type: 'refused', error });
  const published = applyControllerCommand(controller, { type: 'publish', num: 2 });
  assert.equal(published.result, { type: 'published', current: 2 });
  assert.equal(published.state, controllerOf([zero, one, two], 2));
});

test('a shard with no owner starts at install with no image and needs no delete', () => {
  const { controller, driver } = planned([zero, one], 0);
  assert.equal(driver.progress[0], { step: 'install', image: null });
  const identity = controller.next!.moves[0]!;
  const receipt = { identity, digest: '7' };
  const after = handleReply(controller, driver, 0, { type: 'receipt', receipt });
  assert.equal(after.progress[0], { step: 'done' });
});

test('handleReply: errors and unexpected replies change nothing', () => {
  const { controller, driver } = planned([zero, one, two], 1);
  assert.is(handleReply(controller, driver, 0, { type: 'error', error: 'stale-epoch' }), driver);
  assert.is(handleReply(controller, driver, 0, { type: 'unfrozen' }), driver);
  assert.equal(driverSends(controller, driver, 0, noMigrationBugs), [
    { to: 1, command: { type: 'freeze', identity: controller.next!.moves[0]! } },
  ]);
  assert.equal(driverSends(controller, driver, 5, noMigrationBugs), []);
  assert.is(readyToPublish(controller, driver), false);
});

test('handleReply: a late reply of an earlier migration of the shard is ignored', () => {
  const { controller, driver } = planned([zero, one, two], 1);
  const current = controller.next!.moves[0]!;
  const earlier = { ...current, epoch: 1, src: 0, dst: 1 };
  const kv = SortedArrayMap.fromSorted(['a'], ['old']);
  const dedup = SortedArrayMap.empty<number, never>();
  const image = { kv, dedup, sessionFloor: 0, digest: imageDigest(kv, dedup) };
  const lateImage = { type: 'image', identity: earlier, image } as const;
  assert.is(handleReply(controller, driver, 0, lateImage), driver);
  const fresh = handleReply(controller, driver, 0, { type: 'image', identity: current, image });
  assert.equal(fresh.progress, [{ step: 'install', image }]);
  const oldReceipt = { identity: earlier, digest: image.digest };
  assert.is(handleReply(controller, fresh, 0, { type: 'receipt', receipt: oldReceipt }), fresh);
  const receipt = { identity: current, digest: image.digest };
  const installed = handleReply(controller, fresh, 0, { type: 'receipt', receipt });
  assert.equal(installed.progress, [{ step: 'delete', receipt }]);
  const lateDeleted = { type: 'deleted', tombstone: earlier } as const;
  assert.is(handleReply(controller, installed, 0, lateDeleted), installed);
  const deleted = handleReply(controller, installed, 0, { type: 'deleted', tombstone: current });
  assert.equal(deleted.progress, [{ step: 'done' }]);
  assert.is(readyToPublish(controller, deleted), true);
});

const identity: Identity = { shard: 2, epoch: 2, src: 1, dst: 2 };
const facts = (change: Partial<ShardFacts>): ShardFacts =>
  ({ phase: 'absent', identity: null, receipt: null, tombstone: null, ...change });

test('recoverShard: the next step follows from the facts only', () => {
  const { controller } = planned([zero, one, two], 1);
  const driver = restartDriver(controller);
  assert.equal(driver,
    { num: 2, progress: [{ step: 'recover', srcFacts: null, dstFacts: null }] });
  const receipt = { identity, digest: '42' };
  const frozen = facts({ phase: 'frozen', identity });
  const installed = facts({ phase: 'serving', identity, receipt });
  const deleted = facts({ identity, tombstone: identity });
  const cases: [ShardFacts, ShardFacts, unknown][] = [
    [facts({ phase: 'serving' }), facts({}), { step: 'freeze' }],
    [frozen, facts({}), { step: 'freeze' }],
    [frozen, installed, { step: 'delete', receipt }],
    [deleted, installed, { step: 'done' }],
    [deleted, facts({}), { step: 'done' }],
  ];
  for (const [src, dst, progress] of cases) {
    const recovered = recoverShard(controller, driver, 0, src, dst, noMigrationBugs);
    assert.equal(recovered, { driver: { num: 2, progress: [progress] }, sends: [] });
  }
  const notRecovering = { num: 2, progress: [{ step: 'freeze' as const }] };
  assert.is(recoverShard(controller, notRecovering, 0, frozen, facts({}), noMigrationBugs), null);
  const bugs = { ...noMigrationBugs, 'unfreeze-on-recovery': true };
  assert.equal(recoverShard(controller, driver, 0, frozen, installed, bugs)?.sends,
    [{ to: 1, command: { type: 'unfreeze', identity } }]);
});

test('reportFacts: each group reports on its own; the shard resumes once both did', () => {
  const { controller } = planned([zero, one, two], 1);
  const driver = restartDriver(controller);
  const receipt = { identity, digest: '42' };
  const frozen = facts({ phase: 'frozen', identity });
  const installed = facts({ phase: 'serving', identity, receipt });
  const dstFirst = reportFacts(controller, driver, 0, 2, installed, noMigrationBugs)!;
  assert.equal(dstFirst, { driver: { num: 2, progress: [
    { step: 'recover', srcFacts: null, dstFacts: installed }] }, sends: [] });
  // A group that is neither src nor dst, or gid 0, counts for nothing.
  assert.is(reportFacts(controller, driver, 0, 3, frozen, noMigrationBugs), null);
  assert.is(reportFacts(controller, driver, 0, 0, frozen, noMigrationBugs), null);
  const both = reportFacts(controller, dstFirst.driver, 0, 1, frozen, noMigrationBugs)!;
  assert.equal(both, { driver: { num: 2, progress: [{ step: 'delete', receipt }] }, sends: [] });
  // A late answer once the shard resumed counts for nothing either.
  assert.is(reportFacts(controller, both.driver, 0, 2, installed, noMigrationBugs), null);
});

test('recoverShard: a move from gid 0 resumes at install, or is done with a receipt', () => {
  const { controller } = planned([zero, one], 0);
  const driver = restartDriver(controller);
  const first = controller.next!.moves[0]!;
  assert.equal(recoverShard(controller, driver, 0, null, facts({}), noMigrationBugs)
    ?.driver.progress[0], { step: 'install', image: null });
  const receipt = { identity: first, digest: '1' };
  const recovered = recoverShard(controller, driver, 0, null, facts({ receipt }), noMigrationBugs);
  assert.equal(recovered?.driver.progress[0], { step: 'done' });
});

test('recoverShard: an unassigning move is done once src froze it under its identity', () => {
  const none: Config = { num: 2, shards: [0, 0, 0], groups: {} };
  const { controller } = planned([zero, one, none], 1);
  const driver = restartDriver(controller);
  const parked = controller.next!.moves[0]!;
  const frozen = facts({ phase: 'frozen', identity: parked });
  assert.equal(recoverShard(controller, driver, 0, frozen, null, noMigrationBugs)
    ?.driver.progress[0], { step: 'done' });
  assert.equal(recoverShard(controller, driver, 0, facts({ phase: 'serving' }), null,
    noMigrationBugs)?.driver.progress[0], { step: 'freeze' });
});

test('a move plans exactly one identity; a config that moves nothing publishes at once', () => {
  const moved = moveConfig(two, 0, 2);
  assert.ok(moved.ok && moved.value !== null);
  const { controller } = planned([zero, one, two, moved.value], 2);
  assert.is(controller.next?.moves.length, 1);
  const empty = planned([zero, one, { ...one, num: 2 }], 1);
  assert.equal(empty.controller.next, { num: 2, moves: [] });
  assert.is(readyToPublish(empty.controller, empty.driver), true);
});

test.run();
