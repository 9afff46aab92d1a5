// Issue 20 item 3: the shell runs the migration driver exactly as the Raft step's leadership
// effects say; conform's check (verify/conform/leadership-checks.ts) on small hand-made traces
// of one controller replica, each a conforming one with one duty broken.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TraceActor, TraceRecord } from '../../impl/trace/schema.js';
import { checkDriverLeadership } from '../../verify/conform/leadership-checks.js';

type Row = readonly [TraceActor, string, ...string[]] | readonly ['restart'];

/** Records from rows: [actor, input type, effect types...]; 'restart' starts an incarnation. */
function trace(rows: readonly Row[]): TraceRecord[] {
  let inc = 1;
  return rows.map((row, index) => {
    if (row[0] === 'restart') inc++;
    const [actor, input, ...effects] = row[0] === 'restart'
      ? ['raft', 'restart'] as const : row;
    return {
      v: 1, node: 'ctl-0', seq: index + 1, inc, lamport: index + 1, actor,
      input: { type: input }, effects: effects.map((type) => ({ type })),
    };
  });
}

const led: Row[] = [
  ['raft', 'electionTimeout', 'saveHardState', 'sendSoon'],
  ['raft', 'message', 'saveEntries', 'sendSoon'],
  ['raft', 'message', 'saveHardState', 'apply', 'leaderReady'],
  ['machine', 'apply'],
  ['driver', 'start'],
  ['driver', 'tick'],
  ['raft', 'message', 'saveHardState', 'leadershipLost', 'setTimer', 'cancelTimer'],
  // The shell performs leadershipLost after the step's sync: a tick may come between.
  ['driver', 'tick'],
  ['driver', 'stop'],
  ['raft', 'heartbeat'],
];

test('a driver run between leaderReady and the stop after leadershipLost conforms', () => {
  assert.is(checkDriverLeadership(trace(led)), null);
});

test('a driver started before its leader was ready is a shell divergence', () => {
  const early = [led[0]!, led[1]!, ['driver', 'start'] as Row, ...led.slice(2)];
  const found = checkDriverLeadership(trace(early));
  assert.equal(found, { ...found, check: 'shell', step: 3, actor: 'driver',
    what: 'the driver started without a leaderReady of this leadership' });
});

test('a driver not stopped after leadershipLost is caught at the next Raft step', () => {
  const kept = led.filter((row) => row[1] !== 'stop');
  const found = checkDriverLeadership(trace(kept));
  assert.equal(found, { ...found, step: 9, actor: 'raft',
    what: 'the driver still ran after leadershipLost at step 7' });
});

test('a driver step after its stop, or a stop without leadershipLost, is caught', () => {
  const late = checkDriverLeadership(trace([...led, ['driver', 'tick']]));
  assert.equal(late?.what, 'a driver tick step while the driver was stopped');
  const unasked = [...led.slice(0, 6), ['driver', 'stop'] as Row];
  assert.equal(checkDriverLeadership(trace(unasked))?.what,
    'the driver stopped without a leadershipLost');
});

test('a restart ends the leadership: a start needs a new leaderReady', () => {
  const restarted: Row[] = [...led.slice(0, 6), ['restart'], ['driver', 'start']];
  assert.equal(checkDriverLeadership(trace(restarted))?.what,
    'the driver started without a leaderReady of this leadership');
  const again: Row[] = [...led.slice(0, 6), ['restart'], ...led];
  assert.is(checkDriverLeadership(trace(again)), null);
});

test.run();
