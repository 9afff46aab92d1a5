// Issue 23 item 4: conform reads the nodes' traces together, merged by Lamport clock, and
// checks each delivery as it is read against a bounded ledger of the messages sent
// (verify/conform/lamport-merge.ts, link-ledger.ts, sent-messages.ts): hand-made records of
// one link, each a conforming one or one duty broken.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TraceRecord } from '../../impl/trace/schema.js';
import { LamportMerge } from '../../verify/conform/lamport-merge.js';
import { linkStep } from '../../verify/conform/link-facts.js';
import { LinkLedger } from '../../verify/conform/link-ledger.js';
import { messageIdParts, SentMessages } from '../../verify/conform/sent-messages.js';
import { textSource } from '../../verify/conform/trace-lines.js';

const setup = (id: number) => ({ peers: ['a', 'b'], id, gid: 100, shardCount: 1,
  raftOptions: { maxEntriesPerAppend: 1, preVote: false, checkQuorum: false } });

const message = { type: 'RequestVoteRequest', term: 1, lastLogIndex: 0, lastLogTerm: 0 };

function record(node: string, seq: number, lamport: number, actor: TraceRecord['actor'],
  input: Record<string, unknown>, effects: unknown[] = []): TraceRecord {
  return { v: 1, node, seq, inc: 1, lamport, actor, input: { ...input }, effects,
    ...(actor === 'shell' ? {} : { digest: '0' }),
    ...(seq === 1 ? { setup: setup(node === 'a' ? 0 : 1) } : {}) };
}

/**
 * `a` votes for itself (a `beforeSends` save), syncs at `syncedAt`, sends at clock 4 (its
 * trace goes on past the delivery at 6).
 */
function sender(syncedAt: number): TraceRecord[] {
  return [
    record('a', 1, 1, 'raft', { type: 'restart' }),
    record('a', 2, 2, 'raft', { type: 'electionTimeout' }, [
      { type: 'saveHardState', hardState: { currentTerm: 1, votedFor: 0, commitIndex: 0 },
        sync: 'beforeSends' },
      { type: 'send', to: 1, id: 'a:1:1', message },
    ]),
    record('a', 3, syncedAt, 'shell', { type: 'synced', step: 2 }),
    record('a', 4, 8, 'raft', { type: 'heartbeat' }),
  ];
}

const delivery = (id: string, sentLamport: number, sent = message) =>
  record('b', 2, 6, 'raft', { type: 'message', from: 0, id, sentLamport, message: sent });

/** The ledger's first problem after the records, merged by Lamport clock. */
function firstProblem(records: TraceRecord[], messagesMax?: number) {
  const byNode = new Map<string, TraceRecord[]>();
  for (const one of records) byNode.set(one.node, [...(byNode.get(one.node) ?? []), one]);
  const texts = (node: string) => byNode.get(node)!.map((one) => JSON.stringify(one) + '\n');
  const sources = new Map([...byNode.keys()].map((node) =>
    [node, textSource(texts(node).join(''))] as const));
  const merge = new LamportMerge(byNode);
  const ledger = new LinkLedger(sources, (node) => merge.endOf(node), messagesMax);
  for (let next = merge.next(); next !== undefined; next = merge.next()) {
    const step = linkStep(next);
    if (step !== null) ledger.next(step);
  }
  return { problem: ledger.firstProblem(['a', 'b']), unchecked: ledger.unchecked };
}

const receiver = [record('b', 1, 1, 'raft', { type: 'restart' })];

test('the merge goes by Lamport clock, then node name, each node in its own order', () => {
  const merge = new LamportMerge(new Map([
    ['b', [record('b', 1, 1, 'raft', {}), record('b', 2, 5, 'raft', {})]],
    ['a', [record('a', 1, 1, 'raft', {}), record('a', 2, 3, 'raft', {}),
      record('a', 3, 2, 'raft', {})]],
    ['c', []],
  ]));
  assert.is(merge.endOf('c'), 0);
  const order: string[] = [];
  for (let next = merge.next(); next !== undefined; next = merge.next()) {
    order.push(`${next.node}${next.seq}`);
  }
  assert.equal(order, ['a1', 'b1', 'a2', 'a3', 'b2']);
  assert.is(merge.endOf('a'), 2);
  assert.is(merge.endOf('b'), 5);
});

test('a message that left after its persist was synced conforms', () => {
  assert.equal(firstProblem([...sender(3), ...receiver, delivery('a:1:1', 4)]),
    { problem: null, unchecked: 0 });
});

test('a message that left before its persist was synced diverges at its delivery', () => {
  const { problem } = firstProblem([...sender(5), ...receiver, delivery('a:1:1', 4)]);
  assert.equal(problem, { divergence: { check: 'shell', node: 'b', step: 2, actor: 'raft',
    lamport: 6, what: 'message a:1:1 (step 2) left a before the persist of its step 2 was ' +
      'synced' } });
});

test('a delivered message that differs, or was never sent, or came on another link', () => {
  const changed = firstProblem([...sender(3), ...receiver,
    delivery('a:1:1', 4, { ...message, term: 2 })]).problem;
  assert.match(changed && 'divergence' in changed ? changed.divergence.what : '',
    /^message a:1:1 differs from the one sent$/);
  const never = firstProblem([...sender(3), ...receiver, delivery('a:1:2', 4)]).problem;
  assert.is(never && 'divergence' in never ? never.divergence.what : '',
    'delivered message a:1:2 was never sent');
  const other = firstProblem([...sender(3), ...receiver,
    { ...delivery('a:1:1', 4), input: { ...delivery('a:1:1', 4).input as object, from: 1 } }])
    .problem;
  assert.is(other && 'divergence' in other ? other.divergence.what : '',
    'message a:1:1 was sent on another link');
});

test('a sender whose trace ends before the message left is incomplete input', () => {
  const { problem } = firstProblem([...sender(3).slice(0, 3), ...receiver,
    delivery('a:1:1', 4)].map((one) => one.node === 'a' ? one
    : { ...one, input: { ...one.input as object, id: 'a:1:7', sentLamport: 9 } }));
  assert.equal(problem, { incomplete: 'a.jsonl is truncated: it ends at Lamport clock 3, ' +
    'before message a:1:7 left it at 9 (b received it)' });
});

test('the ledger is bounded: a message older than it keeps is counted unchecked', () => {
  const sent = new SentMessages(100);
  const slot = { receiver: 0, seq: 1, gate: 0, syncedAt: 0, hashHigh: 1, hashLow: 2 };
  sent.add('a', 1, 1, slot);
  for (let inc = 2; inc < 10; inc++) sent.add('a', inc, 1, slot);
  assert.is(sent.get('a', 1, 1), 'forgotten');
  assert.equal(sent.get('a', 9, 1), slot);
  assert.is(sent.get('a', 9, 2), 'unknown');
  assert.equal(firstProblem([...sender(3), ...receiver, delivery('a:1:1', 4)], 0),
    { problem: null, unchecked: 1 });
});

test('message ids are node:incarnation:counter', () => {
  assert.equal(messageIdParts('g100-0:3:17'), { sender: 'g100-0', inc: 3, counter: 17 });
  assert.equal(messageIdParts('a:b:1:2'), { sender: 'a:b', inc: 1, counter: 2 });
  for (const id of ['g100-0:3', ':1:2', 'a:01:2', 'a:1:0', 'a:1:x']) {
    assert.is(messageIdParts(id), null, id);
  }
});

test.run();
