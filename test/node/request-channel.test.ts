// RequestChannel (impl/node/request-channel.ts): a request sent keeping its late reply still
// hands a reply that arrives after its timeout to its listener, once, until it is forgotten
// (issue 27: a clerk's earlier attempts of one operation stay open); a restarted node's new
// requests do not take the replies to its earlier incarnation's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Transport } from '../../impl/io/transport.js';
import { firstRequestId, RequestChannel } from '../../impl/node/request-channel.js';
import { decodeFrame, type ReplyBody } from '../../impl/node/wire.js';
import { VirtualClock } from '../../impl/sim/virtual-clock.js';

const reply: ReplyBody = { type: 'refused', error: 'slow' };

/** A channel over a transport that only records the ids of the requests sent. */
function channel(clock = new VirtualClock()) {
  const sent: number[] = [];
  const transport: Transport = {
    name: 'client-1',
    send: (_to, frame) => {
      const decoded = decodeFrame(frame);
      if (decoded?.kind === 'request') sent.push(decoded.id);
    },
    onFrame: () => undefined,
    close: async () => undefined,
  };
  const requests =
    new RequestChannel(transport, clock.timers(), 'test-', firstRequestId(clock.now()));
  return { clock, channel: requests, sent };
}

test('a reply after the timeout goes to the late listener once; forgotten, it is ignored',
  async () => {
    const { clock, channel: requests, sent } = channel();
    const late: ReplyBody[] = [];
    const first = requests.requestKeepingLate('g100-0', { type: 'status' }, 100,
      (body) => late.push(body))!;
    const second = requests.requestKeepingLate('g100-0', { type: 'status' }, 100,
      (body) => late.push(body))!;
    await clock.runUntilSettled(200);
    assert.is(await first.answer, null, 'the attempt itself timed out');
    assert.is(await second.answer, null);
    assert.equal(sent, [first.id, second.id]);
    requests.handleReply(first.id, reply);
    requests.handleReply(first.id, reply);
    assert.equal(late, [reply], 'a duplicate reply is ignored');
    requests.forgetLate(second.id);
    requests.handleReply(second.id, reply);
    assert.equal(late, [reply], 'a forgotten request is ignored');
  });

test('a reply in time answers the request, not the late listener; plain requests keep none',
  async () => {
    const { clock, channel: requests } = channel();
    const late: ReplyBody[] = [];
    const kept = requests.requestKeepingLate('g100-0', { type: 'status' }, 100,
      (body) => late.push(body))!;
    requests.handleReply(kept.id, reply);
    assert.equal(await kept.answer, reply);
    const plain = requests.request('g100-0', { type: 'status' }, 100);
    await clock.runUntilSettled(200);
    assert.is(await plain, null);
    requests.handleReply(kept.id, reply);
    requests.handleReply(kept.id + 1, reply);
    assert.equal(late, []);
  });

test('a reply to an earlier incarnation\'s request does not answer a restarted node\'s',
  async () => {
    const clock = new VirtualClock();
    const before = channel(clock);
    void before.channel.request('g101-0', { type: 'status' }, 1_000);
    await clock.runUntilSettled(5);
    // The node crashed and started again: a new channel sends the new incarnation's requests.
    const after = channel(clock);
    const answer = after.channel.request('g101-0', { type: 'status' }, 100);
    // The group answers the first incarnation's request late, by its id.
    after.channel.handleReply(before.sent[0]!, reply);
    await clock.runUntilSettled(200);
    assert.is(await answer, null, 'the new request waited for its own reply, and timed out');
    assert.ok(after.sent[0]! > before.sent[0]!);
  });

test.run();
