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

test('an AppendEntries frame holds each command once, as its JSON, cached per command', () => {
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
  const encoded = encodeFrame(frame);
  // The commands as one JSON array: their texts, commas and brackets, behind a few varints.
  const commandsText = `[${message.entries.map((entry) => stringifyWithMaps(entry.command))}]`;
  assert.ok(Buffer.from(encoded).includes(commandsText), 'the commands as JSON');
  assert.ok(encoded.length < encodeText(commandsText).length + 16, 'and little besides');
  assert.equal(encodeFrame(frame), encoded, 'the cached command texts encode the same');
  const decoded = decodeFrame(encoded);
  assert.ok(decoded?.kind === 'raft' && decoded.message.type === 'AppendEntriesRequest');
  assert.equal(decoded.message.entries.map((entry) => entry.term), [3, 3, 3]);
  const decodedImage = (decoded.message.entries[1]!.command as typeof install).image;
  assert.equal([...decodedImage.kv.entries()], [['k', 'v']]);
});

/** A frame's bytes: numbers as bytes, text as its UTF-8. */
const bytesOf = (...parts: (number | string)[]) => Uint8Array.from(
  parts.flatMap((part) => (typeof part === 'number' ? [part] : [...encodeText(part)])));

test('client traffic is written without the map replacer, byte for byte the same', () => {
  const request = { client: 3, seq: 8, op: 'get', key: 'k"\\é', value: '' } as const;
  const bodies: Frame[] = [
    { kind: 'request', id: 5, body: { type: 'kv', request } },
    { kind: 'reply', id: 5, body: { type: 'group-result', result: { type: 'value', value: 'v' } } },
    { kind: 'reply', id: 6, body: { type: 'group-result', result: { type: 'ok' } } },
    { kind: 'reply', id: 7, body: { type: 'wrong-leader', leader: null } },
    { kind: 'reply', id: 8, body: { type: 'refused', error: 'no' } },
  ];
  for (const frame of bodies) {
    assert.ok(frame.kind !== 'raft');
    const text = stringifyWithMaps(frame.body);
    const bytes = encodeFrame(frame);
    // The body is the frame's tail, after the header and the id.
    const tail = encodeText(text);
    assert.equal(Array.from(bytes.subarray(bytes.length - tail.length)), Array.from(tail));
    assert.equal(decodeFrame(bytes), frame);
  }
  // A result that holds a map still goes through the map writer.
  const kv = BTreeMap.empty<string, string>().set('a', '1');
  const dedup = BTreeMap.empty<number, DedupRecord>();
  const image = { kv, dedup, sessionFloor: 0, digest: imageDigest(kv, dedup) };
  const identity = { shard: 3, epoch: 2, src: 100, dst: 101 };
  const reply: ReplyBody = { type: 'group-result', result: { type: 'image', identity, image } };
  const decoded = decodeFrame(encodeFrame({ kind: 'reply', id: 9, body: reply }));
  assert.ok(decoded?.kind === 'reply' && decoded.body.type === 'group-result');
  assert.ok(decoded.body.result.type === 'image' && decoded.body.result.image.kv instanceof BTreeMap);
});

test('malformed frames decode to null', () => {
  const status = bytesOf(1, 2, 0, 1, '{"type":"status"}');
  assert.equal(decodeFrame(status), { kind: 'request', id: 1, body: { type: 'status' } });
  const vote = bytesOf(1, 1, 0, 3, 5, 1);
  assert.equal(decodeFrame(vote),
    { kind: 'raft', message: { type: 'RequestVoteResponse', term: 5, voteGranted: true } });
  const malformed: Record<string, Uint8Array> = {
    'the JSON frames of before': encodeText('{"kind":"request","id":1,"body":{"type":"status"}}'),
    'an unknown version': bytesOf(2, 2, 0, 1, '{"type":"status"}'),
    'an unknown kind': bytesOf(1, 4, 0, 1, '{"type":"status"}'),
    'a stamp flag of 2': bytesOf(1, 2, 2, 1, '{"type":"status"}'),
    'an unknown message type': bytesOf(1, 1, 0, 9, 5, 1),
    'a vote flag of 2': bytesOf(1, 1, 0, 3, 5, 2),
    'a byte left over': bytesOf(1, 1, 0, 3, 5, 1, 0),
    'a field cut off': bytesOf(1, 1, 0, 3, 5),
    'a varint padded with zeros': bytesOf(1, 1, 0, 3, 0x85, 0, 1),
    'a varint beyond 2^53': bytesOf(1, 1, 0, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1),
    'fewer commands than terms': bytesOf(1, 1, 0, 5, 1, 0, 0, 0, 0, 2, 1, 1, 6, '[null]'),
    'entries beyond the frame': bytesOf(1, 1, 0, 5, 1, 0, 0, 0, 0, 0x80, 0x80, 0x01),
    'invalid UTF-8 in a stamp': bytesOf(1, 1, 1, 1, 0xff, 0, 3, 5, 1),
    'a request body that is not JSON': bytesOf(1, 2, 0, 1, '{"type":'),
    'a request of no kind': bytesOf(1, 2, 0, 1, '{"type":"kv","request":"get a"}'),
    'a wrong-leader named by number': bytesOf(1, 3, 0, 1, '{"type":"wrong-leader","leader":3}'),
    'map keys out of order': bytesOf(1, 2, 0, 1,
      '{"type":"group","command":{"kv":{"$map":[["b",1],["a",2]]}}}'),
    'a map with another field': bytesOf(1, 2, 0, 1,
      '{"type":"group","command":{"kv":{"$map":[["a",1]],"x":1}}}'),
  };
  for (const [what, bytes] of Object.entries(malformed)) assert.is(decodeFrame(bytes), null, what);
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
