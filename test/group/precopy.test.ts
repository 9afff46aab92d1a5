// Pre-copy (issue 21 item 3, spec/group/image-delta.ts): src pins a large shard while it still
// serves, the driver stages the base's parts at dst, and the freeze hands over only the delta;
// the base with the delta applied is the frozen image exactly, and its receipt binds the
// frozen digest. A delta too large to travel falls back to staging the frozen image itself.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { noMigrationBugs } from '../../spec/migration/bugs.js';
import { driverSends, handleReply } from '../../spec/migration/driver.js';
import { recoverShard, restartDriver } from '../../spec/migration/recovery.js';
import type { DriverState } from '../../spec/migration/types.js';
import type { ControllerState } from '../../spec/controller/state-machine.js';
import {
  applyDelta,
  applyGroupCommand,
  BTreeMap,
  emptyGroup,
  imageDelta,
  imageDigest,
  imagePart,
  precopyDigest,
  SortedArrayMap,
  withShard,
  type DedupMap,
  type GroupCommand,
  type GroupResult,
  type GroupState,
  type Identity,
  type KvMap,
  type PartsManifest,
} from '../../spec/group/index.js';
import { unboundedSizes } from '../../spec/group/size-policy.js';

const move: Identity = { shard: 0, epoch: 2, src: 1, dst: 2 };
const budget = 26;
const apply = (group: GroupState, command: GroupCommand) =>
  applyGroupCommand(group, command, noMigrationBugs, { ...unboundedSizes, imagePartBytes: budget });
const kv = SortedArrayMap.fromSorted(['a', 'b', 'c'], ['xxxx', 'yyyy', 'zzzz']) as KvMap;
const noDedup = SortedArrayMap.empty() as unknown as DedupMap;

/** Group 1 serving shard 0 with `data`: the source. */
function source(data: KvMap = kv): GroupState {
  const group = emptyGroup(1, 1);
  return withShard(group, 0, { ...group.shards[0]!, phase: 'serving', kv: data, dedup: noDedup });
}
const put = (group: GroupState, key: string, value: string): GroupState => {
  const record = group.shards[0]!;
  return withShard(group, 0, { ...record, kv: record.kv.set(key, value) });
};
const result = <T extends GroupResult['type']>(applied: { result: GroupResult }, type: T) => {
  assert.is(applied.result.type, type, JSON.stringify(applied.result));
  return applied.result as Extract<GroupResult, { type: T }>;
};

test('imageDelta: the base with the delta applied is the image (random maps)', () => {
  const entries = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
    fc.constantFrom('1', '22', '333'));
  const record = fc.record({ seq: fc.integer({ min: 0, max: 3 }) });
  const records = fc.dictionary(fc.constantFrom('1', '2', '3'), record);
  fc.assert(fc.property(entries, entries, records, records, (before, after, oldD, newD) => {
    const map = (values: Record<string, string>) => Object.keys(values).sort()
      .reduce((built, key) => built.set(key, values[key]!), BTreeMap.empty() as KvMap);
    const dedupOf = (values: Record<string, { seq: number }>) => Object.keys(values).sort()
      .map(Number).reduce((built, client) => built.set(client,
        { client, seq: values[String(client)]!.seq, digest: 1, result: 'ok' }),
      BTreeMap.empty() as DedupMap);
    const base = { identity: move, kv: map(before), dedup: dedupOf(oldD),
      manifest: { digest: 'base', sessionFloor: 0, count: 2, precopy: true as const } };
    const image = { kv: map(after), dedup: dedupOf(newD), sessionFloor: 3,
      digest: imageDigest(map(after), dedupOf(newD)) };
    const applied = applyDelta(base, imageDelta(base, image));
    assert.is(imageDigest(applied.kv, applied.dedup), image.digest);
    assert.equal([...applied.kv.entries()], [...image.kv.entries()]);
    assert.is(applied.sessionFloor, 3);
  }));
});

test('precopy: a large shard is pinned while src serves; a small or frozen one is not', () => {
  const serving = source();
  const pinned = apply(serving, { type: 'precopy', identity: move });
  const manifest = result(pinned, 'precopied').manifest!;
  assert.equal(manifest, { digest: precopyDigest(move), sessionFloor: 0, count: 2,
    precopy: true });
  assert.is(pinned.state.shards[0]!.phase, 'serving', 'src still serves');
  const again = apply(pinned.state, { type: 'precopy', identity: move });
  assert.is(again.state, pinned.state, 'a repeat changes nothing');
  assert.equal(again.result, pinned.result);
  const small = source(SortedArrayMap.fromSorted(['a'], ['x']) as KvMap);
  const none = apply(small, { type: 'precopy', identity: move });
  assert.is(none.state, small);
  assert.equal(none.result, { type: 'precopied', identity: move, manifest: null });
  const frozen = apply(serving, { type: 'freeze', identity: move }).state;
  assert.equal(apply(frozen, { type: 'precopy', identity: move }).result,
    { type: 'precopied', identity: move, manifest: null }, 'frozen already: freeze it');
  const later = withShard(serving, 0, { ...serving.shards[0]!, identity: { ...move, epoch: 3 } });
  assert.equal(apply(later, { type: 'precopy', identity: move }).result,
    { type: 'error', error: 'stale-epoch' }, 'refused only as a freeze is');
  const facts = result(apply(serving, { type: 'query-shard', shard: 0 }), 'facts').facts;
  assert.is(facts.large, true, 'the facts say the shard is large');
  assert.is(result(apply(small, { type: 'query-shard', shard: 0 }), 'facts').facts.large,
    undefined);
});

/** src pinned, then written to (`changes`), then frozen; dst with the base staged. */
function moved(changes: (group: GroupState) => GroupState) {
  const pinned = apply(source(), { type: 'precopy', identity: move });
  const base = result(pinned, 'precopied').manifest!;
  let dst = emptyGroup(2, 1);
  for (let index = 0; index < base.count; index++) {
    const fetched = apply(changes(pinned.state),
      { type: 'fetch-part', identity: move, digest: base.digest, index });
    const part = result(fetched, 'part').part;
    assert.equal(part, imagePart({ kv, dedup: noDedup, sessionFloor: 0, digest: base.digest },
      budget, index), 'the base part, whatever src served since');
    dst = apply(dst, { type: 'stage-part', identity: move, manifest: base, index, part }).state;
  }
  const frozen = apply(changes(pinned.state), { type: 'freeze', identity: move });
  return { base, dst, frozen };
}

test('freeze after pre-copy: the delta alone; install-parts applies it; the receipt binds ' +
  'the frozen digest', () => {
  const { base, dst, frozen } = moved((group) => put(group, 'b', 'new'));
  const answer = result(frozen, 'frozen');
  assert.equal(answer.manifest, base, 'the parts are the base\'s');
  const delta = answer.delta!;
  assert.equal([...delta.kv.entries()], [['b', 'new']]);
  const record = frozen.state.shards[0]!;
  assert.is(delta.digest, record.frozenDigest);
  const install: GroupCommand = { type: 'install-parts', identity: move, manifest: base, delta };
  const installed = apply(dst, install);
  assert.equal(result(installed, 'receipt').receipt, { identity: move, digest: delta.digest });
  const shard = installed.state.shards[0]!;
  const frozenRecord = frozen.state.shards[0]!;
  assert.equal([...shard.kv.entries()], [...frozenRecord.kv.entries()], 'the frozen image');
  assert.equal([...shard.dedup.entries()], [...frozenRecord.dedup.entries()]);
  assert.is.not(delta.digest, imageDigest(shard.kv, shard.dedup),
    'a pre-copied image digests its base\'s name and the changes, not every value');
  assert.is(shard.staged, null);
  assert.equal(apply(installed.state, install).result, installed.result, 'a repeat: the receipt');
  const late = apply(installed.state, { type: 'stage-part', identity: move, manifest: base,
    index: 0, part: { kv, dedup: noDedup } });
  assert.equal(result(late, 'staged').parts, base.count, 'a late base part: all are in');
  const { delta: _delta, ...withoutDelta } = install as Extract<GroupCommand,
    { type: 'install-parts' }>;
  assert.equal(apply(dst, withoutDelta).result, { type: 'error', error: 'bad-request' },
    'a base is installed only with its delta');
  const deleted = apply(frozen.state, { type: 'delete', identity: move,
    receipt: { identity: move, digest: delta.digest } }).state;
  assert.is(deleted.shards[0]!.precopy, undefined, 'the delete drops the base');
});

test('a delta too large to travel: the frozen image is staged instead, over the base', () => {
  const { base, dst, frozen } = moved((group) =>
    put(put(put(group, 'd', 'dddd'), 'e', 'eeee'), 'f', 'ffff'));
  const answer = result(frozen, 'frozen');
  assert.is(answer.delta, undefined);
  const manifest: PartsManifest = answer.manifest;
  assert.is.not(manifest.digest, base.digest);
  const part = (index: number) => result(apply(frozen.state,
    { type: 'fetch-part', identity: move, digest: manifest.digest, index }), 'part').part;
  const replaced = apply(dst, { type: 'stage-part', identity: move, manifest, index: 0,
    part: part(0) });
  assert.equal(result(replaced, 'staged').parts, 1, 'the base staging is replaced');
  const lateBase = apply(replaced.state, { type: 'stage-part', identity: move, manifest: base,
    index: 0, part: { kv, dedup: noDedup } });
  assert.equal(lateBase.result, { type: 'error', error: 'digest-mismatch' },
    'a late base part does not undo it');
});

test('the driver: precopy, the base staged, freeze, install-parts with the delta at once', () => {
  const configs = [0, 1].map((num) => ({ num, shards: [num], groups: {} }));
  const controller = { next: { num: 2, moves: [move] }, configs, current: 1 } as unknown as
    ControllerState;
  const limits = { partBytesMax: budget, partsInFlightMax: 2 };
  const sent = (driver: DriverState) => driverSends(controller, driver, 0, noMigrationBugs,
    limits).map(({ to, command }) => `${command.type}${'index' in command ? command.index : ''}` +
      ` to ${to}`);
  const recovering = restartDriver(controller);
  const facts = { phase: 'serving' as const, identity: null, receipt: null, tombstone: null };
  const large = recoverShard(controller, recovering, 0, { ...facts, large: true },
    { ...facts, phase: 'absent' }, noMigrationBugs)!.driver;
  assert.equal(sent(large), ['precopy to 1']);
  const plain = recoverShard(controller, recovering, 0, facts, { ...facts, phase: 'absent' },
    noMigrationBugs)!.driver;
  assert.equal(sent(plain), ['freeze to 1'], 'a small shard freezes at once');
  const { base, frozen } = moved((group) => put(group, 'b', 'new'));
  const staging = handleReply(controller, large, 0,
    { type: 'precopied', identity: move, manifest: base });
  assert.equal(sent(staging), ['fetch-part0 to 1', 'fetch-part1 to 1']);
  const staged = handleReply(controller, staging, 0,
    { type: 'staged', identity: move, digest: base.digest, parts: base.count });
  assert.equal(staged.progress[0], { step: 'freeze', precopied: base });
  const installing = handleReply(controller, staged, 0, frozen.result);
  assert.equal(sent(installing), ['install-parts to 2'], 'nothing left to stage');
  const unknown = handleReply(controller, { num: 2, progress: [{ step: 'freeze' }] }, 0,
    frozen.result);
  assert.equal(sent(unknown), ['fetch-part0 to 1', 'fetch-part1 to 1'],
    'a driver that did not see the base staged asks dst from part 0');
  const nothing = handleReply(controller, large, 0,
    { type: 'precopied', identity: move, manifest: null });
  assert.equal(sent(nothing), ['freeze to 1']);
});

test.run();
