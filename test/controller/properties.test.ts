// Property tests of rebalancing against a simple oracle (issue 4, STYLE §10). fast-check prints
// the seed and the shrunk counterexample of any failure; rerun it with { seed, path }.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  applyOperation,
  initialConfig,
  initialControllerState,
  joinConfig,
  latestConfig,
  leaveConfig,
  memberGids,
  minimumMoves,
  movedShards,
  rebalance,
  type Config,
  type ControllerOperation,
  type Gid,
} from '../../spec/controller/index.js';
import { copyConfigs, keepsHistory } from '../../invariants/config-history.js';
import { isBalanced } from '../../invariants/controller-configs.js';

/**
 * The oracle: the fewest shards that must change gid, by brute force over every choice of
 * which groups get the larger count (never looking at how rebalance or minimumMoves work):
 * a group keeps at most min(held, target) of its shards, every other shard moves.
 */
function oracleMinimumMoves(shards: readonly Gid[], gids: readonly Gid[]): number {
  if (gids.length === 0) return shards.filter((gid) => gid !== 0).length;
  const base = Math.floor(shards.length / gids.length);
  const larger = shards.length % gids.length;
  const held = gids.map((gid) => shards.filter((owner) => owner === gid).length);
  let bestKept = 0;
  for (let mask = 0; mask < 1 << gids.length; mask++) {
    let bits = 0;
    for (let at = 0; at < gids.length; at++) if (mask & (1 << at)) bits++;
    if (bits !== larger) continue;
    let kept = 0;
    held.forEach((count, at) => {
      kept += Math.min(count, mask & (1 << at) ? base + 1 : base);
    });
    bestKept = Math.max(bestKept, kept);
  }
  return shards.length - bestKept;
}

function shardCounts(shards: readonly Gid[], gids: readonly Gid[]): number[] {
  return gids.map((gid) => shards.filter((owner) => owner === gid).length);
}

/** Balanced for a bare assignment: every shard on a member, counts within one. */
function balancedOver(shards: readonly Gid[], gids: readonly Gid[]): boolean {
  if (gids.length === 0) return shards.every((gid) => gid === 0);
  if (!shards.every((gid) => gids.includes(gid))) return false;
  const counts = shardCounts(shards, gids);
  return Math.max(...counts) - Math.min(...counts) <= 1;
}

/** An assignment of shardCount shards to gids 0..maximumGid. */
const assignment = (shardCount: number, maximumGid: number) =>
  fc.array(fc.integer({ min: 0, max: maximumGid }), {
    minLength: shardCount,
    maxLength: shardCount,
  });

const gidSet = (maximumGid: number, maximumCount: number) =>
  fc.uniqueArray(fc.integer({ min: 1, max: maximumGid }), { maxLength: maximumCount });

/** Any assignment of shards to gids 0..maximumGid, with any set of target gids. */
const rebalanceInput = fc
  .record({
    shardCount: fc.integer({ min: 1, max: 12 }),
    maximumGid: fc.integer({ min: 1, max: 12 }),
  })
  .chain(({ shardCount, maximumGid }) =>
    fc.record({
      shards: assignment(shardCount, maximumGid),
      gids: gidSet(maximumGid, 10),
    }));

function checkRebalance(
  shards: readonly Gid[],
  gids: readonly Gid[],
  shuffled: readonly Gid[],
): void {
  const result = rebalance(shards, gids);
  assert.ok(balancedOver(result, gids), `balanced: ${result} over ${gids}`);
  const lowerBound = oracleMinimumMoves(shards, gids);
  assert.is(minimumMoves(shards, gids), lowerBound);
  assert.is(movedShards(shards, result), lowerBound);
  assert.equal(rebalance(shards, shuffled), result);
}

test('Balanced, MinimalMoves (= the oracle) and Deterministic for any assignment', () => {
  fc.assert(
    fc.property(rebalanceInput.chain((input) =>
      fc.record({ input: fc.constant(input), shuffled: fc.shuffledSubarray(input.gids, {
        minLength: input.gids.length,
        maxLength: input.gids.length,
      }) })), ({ input, shuffled }) => checkRebalance(input.shards, input.gids, shuffled)),
    { numRuns: 500 },
  );
});

test('many groups (more groups than shards): n groups get one shard, the others none', () => {
  const input = fc.integer({ min: 1, max: 5 }).chain((shardCount) =>
    fc.record({
      shards: assignment(shardCount, 12),
      gids: fc.uniqueArray(fc.integer({ min: 1, max: 12 }), {
        minLength: shardCount + 1,
        maxLength: 12,
      }),
    }));
  fc.assert(
    fc.property(input, ({ shards, gids }) => {
      const result = rebalance(shards, gids);
      const counts = shardCounts(result, gids);
      assert.is(counts.filter((count) => count === 1).length, shards.length);
      assert.is(counts.filter((count) => count === 0).length, gids.length - shards.length);
      // A shard already on a member group stays there unless its group holds two or more.
      const members = shards.filter((gid) => gids.includes(gid));
      assert.is(movedShards(shards, result), shards.length - new Set(members).size);
      checkRebalance(shards, gids, gids.slice().reverse());
    }),
    { numRuns: 300 },
  );
});

/** Applies Join or Leave and checks the step against the oracle; returns the new latest. */
function checkedStep(latest: Config, next: Config): Config {
  assert.is(next.num, latest.num + 1);
  assert.ok(isBalanced(next), `balanced: ${next.shards}`);
  const lowerBound = oracleMinimumMoves(latest.shards, memberGids(next));
  assert.is(movedShards(latest.shards, next.shards), lowerBound);
  return next;
}

test('repeated join and leave of the same gid stay balanced and minimal', () => {
  const scenario = fc.record({
    shardCount: fc.integer({ min: 1, max: 12 }),
    others: gidSet(6, 5),
    gid: fc.integer({ min: 7, max: 9 }),
    rounds: fc.integer({ min: 1, max: 6 }),
  });
  fc.assert(
    fc.property(scenario, ({ shardCount, others, gid, rounds }) => {
      let latest = initialConfig(shardCount);
      if (others.length > 0) {
        const groups = Object.fromEntries(others.map((other) => [other, [`g${other}-0`]]));
        latest = checkedStep(latest, (joinConfig(latest, groups) as { value: Config }).value);
      }
      const settled = latest.shards;
      for (let round = 0; round < rounds; round++) {
        const joined = joinConfig(latest, { [gid]: ['again'] });
        assert.ok(joined.ok);
        latest = checkedStep(latest, joined.value);
        assert.equal(joinConfig(latest, { [gid]: ['again'] }), {
          ok: false,
          error: `join: gid ${gid} is already a member`,
        });
        const left = leaveConfig(latest, [gid]);
        assert.ok(left.ok);
        latest = checkedStep(latest, left.value);
        // Join then Leave of one gid comes back to where it started.
        assert.equal(latest.shards, settled);
      }
      assert.is(latest.num, (others.length > 0 ? 1 : 0) + 2 * rounds);
    }),
    { numRuns: 300 },
  );
});

test('a leaving group\'s shards go to the groups that held the fewest', () => {
  const scenario = fc.record({
    shardCount: fc.integer({ min: 1, max: 12 }),
    gids: fc.uniqueArray(fc.integer({ min: 1, max: 8 }), { minLength: 2, maxLength: 6 }),
    leaving: fc.nat(),
  });
  fc.assert(
    fc.property(scenario, ({ shardCount, gids, leaving }) => {
      const groups = Object.fromEntries(gids.map((gid) => [gid, ['s']]));
      const before = (joinConfig(initialConfig(shardCount), groups) as { value: Config }).value;
      const gone = gids[leaving % gids.length]!;
      const after = checkedStep(before, (leaveConfig(before, [gone]) as { value: Config }).value);
      const remaining = memberGids(after);
      const heldBefore = shardCounts(before.shards, remaining);
      const heldAfter = shardCounts(after.shards, remaining);
      const gained = remaining.filter((_, at) => heldAfter[at]! > heldBefore[at]!);
      const others = remaining.filter((_, at) => heldAfter[at] === heldBefore[at]);
      for (const gainer of gained) {
        for (const other of others) {
          const gainerHeld = heldBefore[remaining.indexOf(gainer)]!;
          assert.ok(gainerHeld <= heldBefore[remaining.indexOf(other)]!);
        }
      }
      // Only the leaving group's shards move.
      const leavingHeld = before.shards.filter((gid) => gid === gone).length;
      assert.is(movedShards(before.shards, after.shards), leavingHeld);
    }),
    { numRuns: 300 },
  );
});

const command = (maximumGid: number, shardCount: number): fc.Arbitrary<ControllerOperation> =>
  fc.oneof(
    gidSet(maximumGid, 3).map((gids) => ({
      type: 'join' as const,
      groups: Object.fromEntries(gids.map((gid) => [gid, [`g${gid}-0`]])),
    })),
    gidSet(maximumGid, 3).map((gids) => ({ type: 'leave' as const, gids })),
    fc.record({
      type: fc.constant('move' as const),
      shard: fc.integer({ min: -1, max: shardCount }),
      gid: fc.integer({ min: 0, max: maximumGid }),
    }),
  );

test('any command sequence: history kept, refusals append nothing, rebalances minimal', () => {
  const run = fc.integer({ min: 1, max: 10 }).chain((shardCount) =>
    fc.record({
      shardCount: fc.constant(shardCount),
      commands: fc.array(command(6, shardCount), { maxLength: 12 }),
    }));
  fc.assert(
    fc.property(run, ({ shardCount, commands }) => {
      let state = initialControllerState(shardCount);
      for (const next of commands) {
        const before = copyConfigs(state.configs);
        const latest = latestConfig(state);
        const step = applyOperation(state, next);
        assert.ok(keepsHistory(before, step.state));
        const appended = step.state.configs.length - state.configs.length;
        if (step.result.type === 'refused') assert.is(appended, 0);
        if (appended === 1 && next.type !== 'move') checkedStep(latest, latestConfig(step.state));
        state = step.state;
      }
    }),
    { numRuns: 300 },
  );
});

test.run();
