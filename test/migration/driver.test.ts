// The migration driver (DESIGN §3): planning one configuration at a time, replies, recovery
// from the groups' facts, publication.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialConfig, joinConfig, moveConfig } from '../../spec/controller/index.js';
import type { Config } from '../../spec/controller/types.js';
import {
  driverSends,
  handleReply,
  planMigration,
  planNext,
  publishNext,
  recoverShard,
  restartDriver,
  type ControllerState,
} from '../../spec/migration/index.js';
import type { Identity, ShardFacts } from '../../spec/group/index.js';

const zero = initialConfig(3);
const join = (latest: Config, gid: number): Config => {
  const result = joinConfig(latest, { [gid]: [`g${gid}-0`] });
  if (!result.ok) throw new Error(result.error);
  return result.value;
};
const one = join(zero, 1);
const two = join(one, 2);
const three = join(two, 3);

test('planMigration: one identity per moved shard, epoch = the new configuration number', () => {
  assert.equal(planMigration(zero, one), {
    ok: true,
    value: [0, 1, 2].map((shard) => ({ shard, epoch: 1, src: 0, dst: 1 })),
  });
  const moved = { shard: 2, epoch: 2, src: 1, dst: 2 };
  assert.equal(planMigration(one, two), { ok: true, value: [moved] });
  const unassigned: Config = { num: 2, shards: [1, 0, 1], groups: {} };
  assert.equal(planMigration(one, unassigned), {
    ok: false,
    error: 'config 2 unassigns shard 1 held by gid 1',
  });
});

test('planNext: N -> N+1 only, never over an existing next, never skipping', () => {
  const controller: ControllerState = { configs: [zero, one, two, three], current: 1, next: null };
  const planned = planNext(controller);
  const moved = { shard: 2, epoch: 2, src: 1, dst: 2 };
  assert.equal(planned?.controller.next, { num: 2, moves: [moved] });
  assert.equal(planned?.driver, { progress: [{ step: 'freeze' }] });
  assert.is(planNext(planned!.controller), null);
  assert.is(planNext({ ...controller, current: 3 }), null);
  const refused: ControllerState = {
    configs: [zero, one, { num: 2, shards: [0, 0, 0], groups: {} }], current: 1, next: null,
  };
  assert.is(planNext(refused), null);
});

test('skip-config: plans straight to the newest configuration, over an in-flight next', () => {
  const controller: ControllerState = { configs: [zero, one, two, three], current: 1, next: null };
  const skipped = planNext(controller, { bug: 'skip-config' });
  assert.is(skipped?.controller.next?.num, 3);
  const inFlight = planNext(controller)!.controller;
  assert.is(planNext(inFlight, { bug: 'skip-config' })?.controller.next?.num, 3);
});

test('a shard with no owner starts at install with an empty image and needs no delete', () => {
  const planned = planNext({ configs: [zero, one], current: 0, next: null })!;
  const emptyImage = { kv: [], dedup: [], sessionFloor: 0 };
  assert.equal(planned.driver.progress[0], { step: 'install', image: emptyImage });
  const identity = planned.controller.next!.moves[0]!;
  const receipt = { identity, digest: 7 };
  const driver = handleReply(planned.controller, planned.driver, 0, { type: 'receipt', receipt });
  assert.equal(driver.progress[0], { step: 'done' });
});

test('handleReply: errors and unexpected replies change nothing', () => {
  const planned = planNext({ configs: [zero, one, two], current: 1, next: null })!;
  const { controller, driver } = planned;
  assert.is(handleReply(controller, driver, 0, { type: 'error', error: 'stale-epoch' }), driver);
  assert.is(handleReply(controller, driver, 0, { type: 'unfrozen' }), driver);
  assert.equal(driverSends(controller, driver, 0), [
    { to: 1, command: { type: 'freeze', identity: controller.next!.moves[0]! } },
  ]);
  assert.equal(driverSends(controller, driver, 5), []);
});

test('handleReply: a late reply of an earlier migration of the shard is ignored', () => {
  const { controller, driver } = planNext({ configs: [zero, one, two], current: 1, next: null })!;
  const current = controller.next!.moves[0]!;
  const earlier = { ...current, epoch: 1, src: 0, dst: 1 };
  const image = { kv: [{ key: 'a', value: 'old' }], dedup: [], sessionFloor: 0 };
  const lateImage = { type: 'image', identity: earlier, image } as const;
  assert.is(handleReply(controller, driver, 0, lateImage), driver);
  const fresh = handleReply(controller, driver, 0, { type: 'image', identity: current, image });
  assert.equal(fresh.progress, [{ step: 'install', image }]);
  const oldReceipt = { identity: earlier, digest: 3 };
  assert.is(handleReply(controller, fresh, 0, { type: 'receipt', receipt: oldReceipt }), fresh);
  const receipt = { identity: current, digest: 3 };
  const installed = handleReply(controller, fresh, 0, { type: 'receipt', receipt });
  assert.equal(installed.progress, [{ step: 'delete', receipt }]);
  const lateDeleted = { type: 'deleted', tombstone: earlier } as const;
  assert.is(handleReply(controller, installed, 0, lateDeleted), installed);
  const deleted = handleReply(controller, installed, 0, { type: 'deleted', tombstone: current });
  assert.equal(deleted.progress, [{ step: 'done' }]);
});

test('publishNext: only once every moved shard is done', () => {
  const planned = planNext({ configs: [zero, one, two], current: 1, next: null })!;
  assert.is(publishNext(planned.controller, planned.driver), null);
  const done = { progress: [{ step: 'done' as const }] };
  assert.equal(publishNext(planned.controller, done), {
    controller: { configs: [zero, one, two], current: 2, next: null },
    driver: { progress: [] },
  });
  assert.is(publishNext({ configs: [zero, one], current: 1, next: null }, { progress: [] }), null);
});

const identity: Identity = { shard: 2, epoch: 2, src: 1, dst: 2 };
const facts = (change: Partial<ShardFacts>): ShardFacts =>
  ({ phase: 'absent', identity: null, receipt: null, tombstone: null, ...change });

test('recoverShard: the next step follows from the facts only', () => {
  const controller = planNext({ configs: [zero, one, two], current: 1, next: null })!.controller;
  const driver = restartDriver(controller);
  assert.equal(driver, { progress: [{ step: 'recover' }] });
  const receipt = { identity, digest: 42 };
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
    const recovered = recoverShard(controller, driver, 0, src, dst);
    assert.equal(recovered, { driver: { progress: [progress] }, sends: [] });
  }
  const notRecovering = { progress: [{ step: 'freeze' as const }] };
  assert.is(recoverShard(controller, notRecovering, 0, frozen, facts({})), null);
  assert.equal(
    recoverShard(controller, driver, 0, frozen, installed, { bug: 'unfreeze-on-recovery' })?.sends,
    [{ to: 1, command: { type: 'unfreeze', identity } }],
  );
});

test('recoverShard: a move from gid 0 resumes at install, or is done with a receipt', () => {
  const controller = planNext({ configs: [zero, one], current: 0, next: null })!.controller;
  const driver = restartDriver(controller);
  const first = controller.next!.moves[0]!;
  assert.equal(recoverShard(controller, driver, 0, null, facts({}))?.driver.progress[0],
    { step: 'install', image: { kv: [], dedup: [], sessionFloor: 0 } });
  const receipt = { identity: first, digest: 1 };
  const recovered = recoverShard(controller, driver, 0, null, facts({ receipt }));
  assert.equal(recovered?.driver.progress[0], { step: 'done' });
});

test('a move plans exactly one identity; a config that moves nothing publishes at once', () => {
  const moved = moveConfig(two, 0, 2);
  assert.ok(moved.ok && moved.value !== null);
  const planned = planNext({ configs: [zero, one, two, moved.value], current: 2, next: null })!;
  assert.is(planned.controller.next?.moves.length, 1);
  const empty = planNext({ configs: [zero, one, { ...one, num: 2 }], current: 1, next: null })!;
  assert.equal(empty.controller.next, { num: 2, moves: [] });
  assert.is(publishNext(empty.controller, empty.driver)?.controller.current, 2);
});

test.run();
