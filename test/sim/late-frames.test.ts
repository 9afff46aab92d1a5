// The simulated network's late frames (additive to impl/sim/simulated-network.ts): a copy is
// sometimes delivered long after frames sent later, as a stale message would be.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { SimulatedNetwork, type NetworkFaults } from '../../impl/sim/simulated-network.js';
import { VirtualClock } from '../../impl/sim/virtual-clock.js';

function arrivals(faults: Partial<NetworkFaults>): number[] {
  const clock = new VirtualClock();
  const network = new SimulatedNetwork(clock, new SeededRandom(5), faults);
  const sender = network.endpoint('a');
  const receiver = network.endpoint('b');
  const times: number[] = [];
  receiver.onFrame(() => { times.push(clock.now()); });
  for (let index = 0; index < 1_000; index++) sender.send('b', Uint8Array.of(index % 256));
  clock.runUntil(10_000);
  return times;
}

test('late frames arrive between delayMsMax and lateDelayMsMax, at about lateRate', () => {
  const times = arrivals({ delayMsMin: 1, delayMsMax: 5, lateRate: 0.1, lateDelayMsMax: 3_000 });
  assert.is(times.length, 1_000);
  const late = times.filter((time) => time > 5);
  assert.ok(late.length >= 60 && late.length <= 140, `${late.length} late frames`);
  assert.ok(late.every((time) => time <= 3_000));
  assert.ok(late.some((time) => time > 1_000), 'some frames are a second late or more');
});

test('without late frames nothing arrives after delayMsMax', () => {
  const times = arrivals({ delayMsMin: 1, delayMsMax: 5 });
  assert.is(times.length, 1_000);
  assert.ok(times.every((time) => time >= 1 && time <= 5));
  assert.throws(() => arrivals({ delayMsMax: 5, lateRate: 0.1, lateDelayMsMax: 4 }),
    /lateDelayMsMax/);
});

test.run();
