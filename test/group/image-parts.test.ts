// A large image travels in parts (issue 21 item 3, spec/group/image-parts.ts): the cut, the
// staging at dst (in order; a part staged already changes nothing; another identity's or
// image's part is refused), the install that assembles them, and the driver that sends them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imageParts, partsManifest } from '../../spec/group/image-parts.js';
import { unboundedSizes } from '../../spec/group/size-policy.js';
import { noMigrationBugs } from '../../spec/migration/bugs.js';
import { handleReply } from '../../spec/migration/driver.js';
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
const apply = (group: GroupState, command: GroupCommand) =>
  applyGroupCommand(group, command, noMigrationBugs, unboundedSizes);
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

test('the driver: parts one at a time, then install-parts; a restart learns what is acknowledged',
  () => {
    const controller = {
      next: { num: 2, moves: [move] }, configs: [], current: 1,
    } as unknown as ControllerState;
    const limits = { partBytesMax: 26 };
    const frozen = handleReply(controller, { num: 2, progress: [{ step: 'freeze' }] }, 0,
      { type: 'image', identity: move, image }, limits);
    const progress = frozen.progress[0]!;
    assert.is(progress.step, 'stage');
    if (progress.step !== 'stage') return;
    assert.is(progress.acknowledged, 0);
    assert.is(progress.parts.length, 3);
    // dst had two parts staged already (an earlier driver sent them): it says so.
    const told = handleReply(controller, frozen, 0,
      { type: 'staged', identity: move, digest: image.digest, parts: 2 }, limits);
    assert.equal(told.progress[0], { ...progress, acknowledged: 2 });
    const late = handleReply(controller, told, 0,
      { type: 'staged', identity: move, digest: image.digest, parts: 1 }, limits);
    assert.is(late, told, 'an answer for a part acknowledged already is late');
    const receipt = { identity: move, digest: image.digest };
    const done = handleReply(controller, told, 0, { type: 'receipt', receipt }, limits);
    assert.equal(done.progress[0], { step: 'delete', receipt });
  });

test.run();
