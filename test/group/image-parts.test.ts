// A large image travels in parts (issue 21 item 3, spec/group/image-parts.ts): the cut, the
// staging at dst (in order; a part staged already changes nothing; another identity's or
// image's part is refused), the install that assembles them, and the driver that sends them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imageParts, partsManifest } from '../../spec/group/image-cut.js';
import { unboundedSizes } from '../../spec/group/size-policy.js';
import { noMigrationBugs } from '../../spec/migration/bugs.js';
import { driverSends, handleReply } from '../../spec/migration/driver.js';
import type { DriverState } from '../../spec/migration/types.js';
import {
  applyGroupCommand,
  emptyGroup,
  imageDigest,
  SortedArrayMap,
  type DedupMap,
  type GroupCommand,
  type GroupState,
  type Identity,
  type Image,
  type ImagePart,
  type KvMap,
  withShard,
} from '../../spec/group/index.js';
import type { ControllerState } from '../../spec/controller/state-machine.js';

const move: Identity = { shard: 0, epoch: 2, src: 1, dst: 2 };
const kv = SortedArrayMap.fromSorted(['a', 'b', 'c'], ['xxxx', 'yyyy', 'zzzz']) as KvMap;
const dedup = SortedArrayMap.fromSorted([7], [{ client: 7, seq: 3, digest: 5, result: 'ok' }]) as
  DedupMap;
const image: Image = { kv, dedup, sessionFloor: 4, digest: imageDigest(kv, dedup) };
// Each KV entry weighs 1 + 4 + 8 = 13, a dedup record 48: 26 fits two entries, not three.
const parts = imageParts(image, { partBytesMax: 26 });
const manifest = partsManifest(image, parts.length);
const apply = (group: GroupState, command: GroupCommand, imagePartBytes = 26) =>
  applyGroupCommand(group, command, noMigrationBugs, { ...unboundedSizes, imagePartBytes });
const stage = (index: number, part: ImagePart = parts[index]!, on = manifest): GroupCommand =>
  ({ type: 'stage-part', identity: move, manifest: on, index, part });
const keysOf = (part: ImagePart) => [...part.kv.entries()].map(([key]) => key);

test('imageParts: KV entries then dedup records, a new part when the budget would pass', () => {
  assert.equal(parts.map(keysOf), [['a', 'b'], ['c'], []]);
  assert.equal(parts.map((part) => part.dedup.size), [0, 0, 1]);
  assert.is(imageParts(image, { partBytesMax: 2 ** 20 }).length, 1);
  // An item larger than the budget is a part alone, never dropped.
  assert.is(imageParts(image, { partBytesMax: 1 }).length, 4);
});

test('stage-part: in order; a repeat or a part past the next answers what is staged', () => {
  let group = emptyGroup(2, 1);
  const first = apply(group, stage(0));
  assert.equal(first.result, { type: 'staged', identity: move, digest: image.digest, parts: 1 });
  group = first.state;
  assert.is(group.shards[0]!.phase, 'absent', 'staging does not serve');
  const again = apply(group, stage(0));
  assert.is(again.state, group, 'a part staged already changes nothing');
  assert.equal(again.result, { type: 'staged', identity: move, digest: image.digest, parts: 1 });
  const ahead = apply(group, stage(2));
  assert.is(ahead.state, group, 'a part past the next changes nothing');
  assert.equal(ahead.result, { type: 'staged', identity: move, digest: image.digest, parts: 1 });
});

test('stage-part: another identity or another image than the staging is refused', () => {
  const group = apply(emptyGroup(2, 1), stage(0)).state;
  const other: Identity = { ...move, src: 3 };
  const otherIdentity = apply(group, { ...stage(1), identity: other } as GroupCommand);
  assert.equal(otherIdentity.result, { type: 'error', error: 'identity-conflict' });
  const otherImage = apply(group, stage(1, parts[1], { ...manifest, digest: '0'.repeat(16) }));
  assert.equal(otherImage.result, { type: 'error', error: 'digest-mismatch' });
  assert.is(otherImage.state, group);
  const wrongGroup = apply(emptyGroup(3, 1), stage(0));
  assert.equal(wrongGroup.result, { type: 'error', error: 'ErrWrongGroup' });
});

test('install-parts: refused until every part is staged, then installs the assembled image', () => {
  let group = emptyGroup(2, 1);
  const install: GroupCommand = { type: 'install-parts', identity: move, manifest };
  for (let index = 0; index < parts.length; index++) {
    assert.equal(apply(group, install).result, { type: 'error', error: 'parts-missing' });
    group = apply(group, stage(index)).state;
  }
  const installed = apply(group, install);
  const receipt = { identity: move, digest: image.digest };
  assert.equal(installed.result, { type: 'receipt', receipt });
  const record = installed.state.shards[0]!;
  assert.is(record.phase, 'serving');
  assert.is(record.staged, null, 'the staging is dropped once installed');
  assert.is(imageDigest(record.kv, record.dedup), image.digest, 'the image, whole');
  assert.is(installed.state.sessionFloor, 4, "the source's expired sessions stay expired");
  // Repeats after the install: the receipt; a late part stages nothing.
  assert.equal(apply(installed.state, install).result, { type: 'receipt', receipt });
  const late = apply(installed.state, stage(0));
  assert.is(late.state, installed.state);
  assert.equal(late.result,
    { type: 'staged', identity: move, digest: image.digest, parts: parts.length });
});

/** Group 1 serving shard 0 with the image's data and session floor: the source. */
function source(): GroupState {
  const group = emptyGroup(1, 1);
  const record = { ...group.shards[0]!, phase: 'serving' as const, kv, dedup };
  return { ...withShard(group, 0, record), sessionFloor: 4 };
}
const fetch = (index: number, digest = image.digest): GroupCommand =>
  ({ type: 'fetch-part', identity: move, digest, index });

test('freeze with a part budget: a large image answered by its manifest, each part fetched',
  () => {
    const serving = source();
    assert.equal(apply(serving, fetch(0)).result, { type: 'error', error: 'not-frozen' });
    const freeze: GroupCommand = { type: 'freeze', identity: move };
    const frozen = apply(serving, freeze);
    assert.equal(frozen.result, { type: 'frozen', identity: move, manifest });
    assert.is(frozen.state.shards[0]!.phase, 'frozen');
    assert.equal(apply(frozen.state, freeze).result, frozen.result, 'a repeat, the same');
    const whole = apply(serving, freeze, 2 ** 20);
    assert.equal(whole.result, { type: 'image', identity: move, image },
      'an image that fits one part travels whole');
    const back = { ...move, dst: 1 };
    const returning = apply(serving, { type: 'freeze', identity: back });
    assert.equal(returning.result, { type: 'image', identity: back, image },
      'a shard coming back to src is answered whole');
    parts.forEach((part, index) => {
      const fetched = apply(frozen.state, fetch(index));
      assert.is(fetched.state, frozen.state, 'a fetch changes nothing');
      assert.equal(fetched.result,
        { type: 'part', identity: move, digest: image.digest, index, part });
    });
    const refusal = (command: GroupCommand) => apply(frozen.state, command).result;
    assert.equal(refusal(fetch(3)), { type: 'error', error: 'bad-request' });
    assert.equal(refusal(fetch(0, '0'.repeat(16))), { type: 'error', error: 'digest-mismatch' });
    const receipt = { identity: move, digest: image.digest };
    const deleted = apply(frozen.state, { type: 'delete', identity: move, receipt }).state;
    assert.equal(apply(deleted, fetch(0)).result, { type: 'error', error: 'already-deleted' });
  });

test('the driver: fetches and stages a window of parts, then install-parts; a restart learns ' +
  'what is acknowledged', () => {
  const controller = {
    next: { num: 2, moves: [move] }, configs: [], current: 1,
  } as unknown as ControllerState;
  const limits = { partBytesMax: 26, partsInFlightMax: 2 };
  const freezing: DriverState = { num: 2, progress: [{ step: 'freeze' }] };
  const sent = (driver: DriverState) => driverSends(controller, driver, 0, noMigrationBugs,
    limits).map(({ to, command }) => `${command.type}${'index' in command ? command.index : ''}` +
      ` to ${to}`);
  assert.equal(sent(freezing), ['freeze to 1']);
  const frozen = handleReply(controller, freezing, 0,
    { type: 'frozen', identity: move, manifest });
  assert.equal(frozen.progress[0],
    { step: 'stage', manifest, parts: [null, null, null], acknowledged: 0 });
  assert.equal(sent(frozen), ['fetch-part0 to 1', 'fetch-part1 to 1'], 'a window of two');
  const part = (index: number) =>
    ({ type: 'part', identity: move, digest: image.digest, index, part: parts[index]! }) as const;
  const held = handleReply(controller, frozen, 0, part(0));
  assert.equal(sent(held), ['stage-part0 to 2', 'fetch-part1 to 1']);
  assert.is(handleReply(controller, held, 0, part(0)), held, 'a part held already');
  const ahead = handleReply(controller, held, 0, part(2)).progress[0]!;
  assert.is(ahead.step === 'stage' && ahead.parts[2], parts[2],
    'a part past the window (a late answer) is kept: it will be wanted');
  // dst had two parts staged already (an earlier driver sent them): it says so.
  const told = handleReply(controller, held, 0,
    { type: 'staged', identity: move, digest: image.digest, parts: 2 });
  assert.equal(told.progress[0],
    { step: 'stage', manifest, parts: [null, null, null], acknowledged: 2 });
  assert.equal(sent(told), ['fetch-part2 to 1'], 'the window ends at the last part');
  const late = handleReply(controller, told, 0,
    { type: 'staged', identity: move, digest: image.digest, parts: 1 });
  assert.is(late, told, 'an answer for a part acknowledged already is late');
  assert.is(handleReply(controller, told, 0, part(1)), told, 'a part acknowledged');
  const all = handleReply(controller, told, 0,
    { type: 'staged', identity: move, digest: image.digest, parts: 3 });
  assert.equal(sent(all), ['install-parts to 2']);
  const receipt = { identity: move, digest: image.digest };
  const done = handleReply(controller, all, 0, { type: 'receipt', receipt });
  assert.equal(done.progress[0], { step: 'delete', receipt });
});

test.run();
