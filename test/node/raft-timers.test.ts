// The shell's sendSoon (impl/node/raft-timers.ts): one `heartbeat` input per turn to every
// peer, or, when every step of the turn named some (a read's round, spec/raft/read-index.ts
// readRoundPeers), one per peer named, the masks of the turn added up.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Timers } from '../../impl/io/clock.js';
import type { LoopContext } from '../../impl/node/loop-context.js';
import { RaftTimers } from '../../impl/node/raft-timers.js';
import { defaultTuning } from '../../impl/node/tuning.js';
import type { Input } from '../../spec/raft/types.js';

/** Timers that run only when told to, by name. */
class HeldTimers implements Timers {
  readonly pending = new Map<string, () => void>();
  setTimer(name: string, _delayMs: number, callback: () => void): void {
    this.pending.set(name, callback);
  }
  cancelTimer(name: string): void {
    this.pending.delete(name);
  }
  cancelAllTimers(): void {
    this.pending.clear();
  }
  fire(name: string): void {
    const callback = this.pending.get(name);
    assert.ok(callback !== undefined, `no ${name} pending`);
    this.pending.delete(name);
    callback();
  }
}

function timersUnderTest() {
  const held = new HeldTimers();
  const inputs: Input<unknown, unknown>[] = [];
  const context = { timers: held, tuning: defaultTuning } as unknown as LoopContext;
  const raft = new RaftTimers(context, (input) => inputs.push(input));
  const turn = () => {
    held.fire('raft-heartbeat-soon');
    return inputs.splice(0);
  };
  return { raft, held, turn };
}

test('a turn\'s sendSoon to some peers sends to those it named, added up', () => {
  const { raft, turn } = timersUnderTest();
  raft.sendSoon(0b010);
  raft.sendSoon(0b1000);
  assert.equal(turn(), [{ type: 'heartbeat', peer: 1 }, { type: 'heartbeat', peer: 3 }]);
  // The next turn starts afresh.
  raft.sendSoon(0b100);
  assert.equal(turn(), [{ type: 'heartbeat', peer: 2 }]);
});

test('a sendSoon to every peer in the turn makes it one heartbeat to all', () => {
  const { raft, turn } = timersUnderTest();
  raft.sendSoon(0b010);
  raft.sendSoon();
  raft.sendSoon(0b100);
  assert.equal(turn(), [{ type: 'heartbeat' }]);
  raft.sendSoon();
  assert.equal(turn(), [{ type: 'heartbeat' }]);
});

test('a cancelled turn leaves the next sendSoon armed', () => {
  const { raft, held, turn } = timersUnderTest();
  raft.sendSoon(0b010);
  held.cancelAllTimers();
  raft.sendSoon(0b100);
  // The cancelled turn's peer is asked too: one heartbeat more, never one fewer.
  assert.equal(turn(), [{ type: 'heartbeat', peer: 1 }, { type: 'heartbeat', peer: 2 }]);
});

test.run();
