// The wire protocol (impl/node/wire.ts): frames round-trip with their maps, every malformed
// frame decodes to null, and a server drops what it cannot read and refuses what the sender
// may not ask (DESIGN §5: a stranger cannot inject Raft messages or migration commands).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BTreeMap } from '../../spec/group/btree-map.js';
import { imageDigest } from '../../spec/group/digest.js';
import type { DedupRecord } from '../../spec/group/types.js';
import { decodeFrame, encodeFrame, type Frame, type ReplyBody } from '../../impl/node/wire.js';
import { encodeText, stringifyWithMaps } from '../../impl/node/json-maps.js';
import { utf8Length } from '../../impl/node/request-limits.js';
import { layoutOf, SimCluster } from './sim-cluster.js';

test('an install command round-trips with its image maps rebuilt as B+ trees', () => {
  const kv = BTreeMap.empty<string, string>().set('b', '2').set('a', '1');
  const record: DedupRecord = { client: 4, seq: 9, digest: 77, result: 'ok' };
  const dedup = BTreeMap.empty<number, DedupRecord>().set(4, record);
  const identity = { shard: 3, epoch: 2, src: 100, dst: 101 };
  const image = { kv, dedup, sessionFloor: 0, digest: imageDigest(kv, dedup) };
  const frame: Frame = {
    kind: 'request', id: 7, body: { type: 'group', command: { type: 'install', identity, image } },
  };
  const decoded = decodeFrame(encodeFrame(frame));
  assert.ok(decoded?.kind === 'request' && decoded.body.type === 'group');
  const command = decoded.body.command;
  assert.ok(command.type === 'install' && command.image !== null);
  assert.ok(command.image.kv instanceof BTreeMap);
  assert.equal([...command.image.kv.entries()], [['a', '1'], ['b', '2']]);
  assert.equal(command.image.dedup.get(4), record);
  assert.is(imageDigest(command.image.kv, command.image.dedup), image.digest);
});

test('an AppendEntries frame holds what the generic encoder writes (commands cached)', () => {
  const kv = BTreeMap.empty<string, string>().set('k', 'v');
  const dedup = BTreeMap.empty<number, DedupRecord>();
  const identity = { shard: 1, epoch: 3, src: 100, dst: 101 };
  const image = { kv, dedup, sessionFloor: 2, digest: imageDigest(kv, dedup) };
  const install = { type: 'install', identity, image };
  const request = { client: 1, seq: 2, op: 'put', key: 'k"\\', value: 'é' };
  const message = {
    type: 'AppendEntriesRequest', term: 3, prevLogIndex: 7, prevLogTerm: 2,
    entries: [{ term: 3, command: null }, { term: 3, command: install },
      { term: 3, command: { type: 'client', request } }],
    leaderCommit: 7, readSequence: 0,
  } as const;
  const frame = { kind: 'raft', message } as unknown as Frame;
  // The same JSON value as the generic encoder's (entries move to the end of the message).
  const expected = JSON.parse(stringifyWithMaps(frame)) as unknown;
  const encoded = encodeFrame(frame);
  assert.equal(JSON.parse(new TextDecoder().decode(encoded)), expected);
  assert.equal(encodeFrame(frame), encoded, 'the cached command texts encode the same');
  const decoded = decodeFrame(encoded);
  assert.ok(decoded?.kind === 'raft' && decoded.message.type === 'AppendEntriesRequest');
  const decodedImage = (decoded.message.entries[1]!.command as typeof install).image;
  assert.equal([...decodedImage.kv.entries()], [['k', 'v']]);
});

test('malformed frames decode to null', () => {
  const texts = [
    'not json', '[]', '{"kind":"raft"}', '{"kind":"gossip","id":1}',
    '{"kind":"raft","message":{"type":"AppendEntriesRequest","term":-1}}',
    '{"kind":"raft","message":{"type":"AppendEntriesRequest","term":1,"prevLogIndex":0,' +
      '"prevLogTerm":0,"leaderCommit":0,"readSequence":0,"entries":{}}}',
    '{"kind":"raft","message":{"type":"RequestVoteResponse","term":1,"voteGranted":"yes"}}',
    '{"kind":"request","id":1.5,"body":{"type":"status"}}',
    '{"kind":"request","id":1,"body":{"type":"kv","request":"get a"}}',
    '{"kind":"reply","id":1,"body":{"type":"wrong-leader","leader":3}}',
    '{"kind":"request","id":1,"body":{"type":"group","command":' +
      '{"kv":{"$map":[["b",1],["a",2]]}}}}',
    '{"kind":"request","id":1,"body":{"type":"group","command":{"kv":{"$map":[["a",1]],"x":1}}}}',
  ];
  for (const text of texts) assert.is(decodeFrame(encodeText(text)), null, text);
  assert.is(decodeFrame(new Uint8Array([0x7b, 0xff, 0x7d])), null, 'invalid UTF-8');
  const status = '{"kind":"request","id":1,"body":{"type":"status"}}';
  assert.equal(decodeFrame(encodeText(status)),
    { kind: 'request', id: 1, body: { type: 'status' } });
});

test('utf8Length counts the bytes of the encoding', () => {
  for (const text of ['', 'abc', 'é', '€', '𝄞', 'a€𝄞é']) {
    assert.is(utf8Length(text), new TextEncoder().encode(text).length, text);
  }
});

test('a server closes a malformed frame\'s link, refuses what the sender may not ask', async () => {
  const layout = layoutOf(1, [100], 1, 4);
  const cluster = new SimCluster({ seed: 41, layout });
  await cluster.startAll();
  await cluster.run(1_000);
  const intruder = cluster.network.endpoint('intruder');
  const replies: ReplyBody[] = [];
  intruder.onFrame((_from, bytes) => {
    const frame = decodeFrame(bytes);
    if (frame?.kind === 'reply') replies.push(frame.body);
  });
  const vote = { type: 'RequestVoteRequest', term: 99, lastLogIndex: 50, lastLogTerm: 50 };
  intruder.send('g100-0', encodeFrame({ kind: 'raft', message: vote as never }));
  const identity = { shard: 0, epoch: 1, src: 0, dst: 100 };
  intruder.send('g100-0', encodeFrame({ kind: 'request', id: 1,
    body: { type: 'group', command: { type: 'install', identity, image: null } } }));
  intruder.send('ctl-0', encodeFrame({ kind: 'request', id: 2,
    body: { type: 'controller', command: { type: 'join', groups: {}, client: 'x', seq: 1 } } }));
  intruder.send('ctl-0', encodeFrame({ kind: 'request', id: 3,
    body: { type: 'controller', command: { type: 'publish', num: 1 } } }));
  intruder.send('g100-0', encodeFrame({ kind: 'request', id: 4,
    body: { type: 'kv', request: { client: 0, seq: 1, op: 'put', key: 'k'.repeat(1025),
      value: '' } } }));
  await cluster.run(100);
  intruder.send('g100-0', encodeText('{"kind":'));
  await cluster.run(100);
  // The network reorders: compare the replies sorted.
  const errors = replies.map((reply) => (reply.type === 'refused' ? reply.error : reply.type));
  assert.equal(errors.sort(), [
    'key longer than 1024 bytes', 'not a client command: publish', 'not authorized',
    'not authorized',
  ]);
  assert.equal(cluster.logs.map((line) => line.replace(/^\d+ /, '')), [
    'g100-0: dropped a raft message from outsider intruder',
    'g100-0: closed the connection with intruder: a malformed frame of 8 bytes ' +
      '(no raft message, request or reply)',
  ]);
  // The injected vote changed nothing: the group's leader keeps its term.
  assert.is(cluster.servers.get('g100-0')!.status()!.term, 1);
  assert.is(cluster.servers.get('g100-0')!.status()!.role, 'leader');
  assert.equal(cluster.fatal, []);
});

test('a follower names the leader; status answers from any server', async () => {
  const layout = layoutOf(3, [], 3, 4);
  const cluster = new SimCluster({ seed: 42, layout });
  await cluster.startAll();
  await cluster.run(2_000);
  const [leader] = cluster.leaders(layout.controllers);
  const follower = layout.controllers.find((name) => name !== leader)!;
  const client = cluster.network.endpoint('client-9');
  const replies = new Map<number, ReplyBody>();
  client.onFrame((_from, bytes) => {
    const frame = decodeFrame(bytes);
    if (frame?.kind === 'reply') replies.set(frame.id, frame.body);
  });
  client.send(follower, encodeFrame({ kind: 'request', id: 1,
    body: { type: 'controller', command: { type: 'register-client' } } }));
  client.send(follower, encodeFrame({ kind: 'request', id: 2, body: { type: 'status' } }));
  client.send(leader!, encodeFrame({ kind: 'request', id: 3,
    body: { type: 'controller', command: { type: 'register-client' } } }));
  await cluster.run(100);
  assert.equal(replies.get(1), { type: 'wrong-leader', leader });
  const status = replies.get(2);
  assert.ok(status?.type === 'status');
  // Index 1 is the leader's no-op (dissertation §6.4), the only entry so far.
  assert.equal({ ...status.status, logBytes: 0 }, {
    name: follower, role: 'follower', term: 1, commitIndex: 1, appliedIndex: 1, logBytes: 0,
    snapshotBytes: 0, shards: [],
  });
  assert.equal(replies.get(3), {
    type: 'controller-result', result: { type: 'registered', client: 0 }, published: false,
  });
});

test.run();
