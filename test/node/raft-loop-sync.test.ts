// The node shell's loop (etcd's Ready: many messages, one fsync): a follower's appends that queued while it synced are stepped before one sync
// for all of them, and no reply leaves before the saves of its step are durable.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import type { LoopContext } from '../../impl/node/loop-context.js';
import { RaftLoop } from '../../impl/node/raft-loop.js';
import { noShellFaults } from '../../impl/node/shell-faults.js';
import { resolveTuning } from '../../impl/node/tuning.js';
import { decodeFrame } from '../../impl/node/wire.js';
import type { Storage } from '../../impl/io/storage.js';
import { initialNode } from '../../spec/raft/node.js';
import type { Message } from '../../spec/raft/types.js';

/** A follower's loop whose syncs complete only when the test says so. */
function follower() {
  const syncs: (() => void)[] = [];
  const saved: number[] = [];
  let durable = 0;
  /** Each reply sent, with the entries durable when it left. */
  const replies: { matchIndex: number; durable: number }[] = [];
  const storage = {
    saveHardState: () => undefined,
    appendEntries: (fromIndex: number, entries: readonly unknown[]) => {
      saved.push(fromIndex + entries.length - 1);
    },
    saveSnapshot: () => undefined,
    sync: () => {
      const upTo = Math.max(0, ...saved);
      return new Promise<void>((resolve) => syncs.push(() => {
        durable = upTo;
        resolve();
      }));
    },
    sizes: () => ({ logBytes: 0, snapshotBytes: 0 }),
  } as unknown as Storage<unknown, unknown>;
  const context: LoopContext = {
    name: 'n1', peers: ['n0', 'n1', 'n2'], tuning: resolveTuning({}), faults: noShellFaults,
    transport: {
      name: 'n1', onFrame: () => undefined, close: async () => undefined,
      send: (_to, frame) => {
        const decoded = decodeFrame(frame);
        assert.ok(decoded !== null && decoded.kind === 'raft');
        const message = decoded.message as { type: string; matchIndex?: number };
        if (message.type === 'AppendEntriesResponse') {
          replies.push({ matchIndex: message.matchIndex!, durable });
        }
      },
    },
    timers: { setTimer: () => undefined, cancelTimer: () => undefined,
      cancelAllTimers: () => undefined },
    clock: { now: () => 0 }, random: new SeededRandom(1), log: () => undefined,
    isDead: () => false, fatal: (error) => { throw error; },
  };
  const loop = new RaftLoop(initialNode(1, 3), context, storage, {}, {
    applyEntry: () => undefined, restoreSnapshot: () => undefined,
    snapshotPoint: () => ({ index: 0, data: null }), readConfirmed: () => undefined,
    leadershipLost: () => undefined, leaderReady: () => undefined, afterStep: () => undefined,
  });
  return { loop, syncs, replies };
}

/** The leader's append of entry `index` (term 1), as follower n1 receives it from n0. */
function append(index: number): Message<unknown, unknown> {
  return { type: 'AppendEntriesRequest', term: 1, prevLogIndex: index - 1,
    prevLogTerm: index === 1 ? 0 : 1, entries: [{ term: 1, command: `c${index}` }],
    leaderCommit: 0, readSequence: 0 };
}

/** Appends 1, 2 and 3, the last two arriving while the first one syncs. */
async function threeAppends() {
  const { loop, syncs, replies } = follower();
  await loop.restart({ hardState: { currentTerm: 0, votedFor: null, commitIndex: 0 },
    snapshot: null, entries: [] });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  loop.enqueue({ type: 'message', from: 0, message: append(1) });
  await settle();
  loop.enqueue({ type: 'message', from: 0, message: append(2) });
  loop.enqueue({ type: 'message', from: 0, message: append(3) });
  // Each completed sync lets the loop go on to the next; it stops when none is pending.
  for (let turn = 0; turn < 10 && syncs.length > 0; turn++) {
    syncs.shift()!();
    await settle();
  }
  await loop.drain();
  return { replies };
}

test('appends queued during a sync share the next sync; each reply follows its saves', async () => {
  const { replies } = await threeAppends();
  assert.equal(replies.map((reply) => reply.matchIndex), [1, 2, 3]);
  for (const reply of replies) {
    assert.ok(reply.durable >= reply.matchIndex, `reply ${reply.matchIndex} before its sync`);
  }
  // Appends 2 and 3 queued while append 1 synced: one sync made both durable before either
  // reply left (a sync each would have sent append 2's reply with only 2 durable).
  assert.equal(replies.map((reply) => reply.durable), [1, 3, 3]);
});

test.run();
