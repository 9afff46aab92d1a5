// The simulator's clock and network: ties in scheduling order, named timers, and a network whose
// delays, drops, duplicates and partitions all follow one seed (FoundationDB / VOPR style).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { EventQueue } from '../../impl/sim/event-queue.js';
import { SimulatedNetwork, type NetworkFaults } from '../../impl/sim/simulated-network.js';
import { VirtualClock } from '../../impl/sim/virtual-clock.js';

test('the event queue pops by time, then by scheduling order; cancelled events never run', () => {
  const queue = new EventQueue();
  const order: string[] = [];
  const times = [5, 1, 5, 3, 1, 5, 0, 3];
  const ids = times.map((time, index) => queue.push(time, () => order.push(`${time}:${index}`)));
  queue.cancel(ids[2]!);
  queue.cancel(ids[2]!);
  assert.is(queue.size, 7);
  for (let event = queue.pop(); event !== undefined; event = queue.pop()) event.run();
  assert.equal(order, ['0:6', '1:1', '1:4', '3:3', '3:7', '5:0', '5:5']);
  assert.is(queue.size, 0);
});

test('the event queue agrees with a sort over many random events', () => {
  const random = new SeededRandom(11);
  const queue = new EventQueue();
  const expected: [number, number][] = [];
  for (let index = 0; index < 2000; index++) {
    const time = random.nextInt(50);
    queue.push(time, () => undefined);
    expected.push([time, index]);
  }
  expected.sort((first, second) => first[0] - second[0] || first[1] - second[1]);
  const popped: [number, number][] = [];
  for (let event = queue.pop(); event !== undefined; event = queue.pop()) {
    popped.push([event.time, event.sequence]);
  }
  assert.equal(popped, expected);
});

test('virtual time jumps from event to event; named timers replace and cancel', () => {
  const clock = new VirtualClock(100);
  const timers = clock.timers();
  const fired: string[] = [];
  timers.setTimer('election', 150, () => fired.push(`election@${clock.now()}`));
  timers.setTimer('heartbeat', 50, () => fired.push(`heartbeat@${clock.now()}`));
  clock.runUntil(120);
  assert.is(clock.now(), 120);
  timers.setTimer('election', 150, () => fired.push(`election@${clock.now()}`));
  assert.is(clock.runUntil(1000), 2);
  assert.equal(fired, ['heartbeat@150', 'election@270']);
  timers.setTimer('heartbeat', 10, () => fired.push('late'));
  timers.cancelAllTimers();
  assert.is(clock.step(), false);
  assert.is(fired.length, 2);
});

test('runUntilSettled lets promise continuations finish between events', async () => {
  const clock = new VirtualClock();
  const log: string[] = [];
  const worker = async () => {
    await clock.sleep(10);
    log.push(`woke@${clock.now()}`);
    await Promise.resolve();
    log.push('continued');
  };
  void worker();
  clock.schedule(10, () => log.push('tie@10'));
  await clock.runUntilSettled(20);
  assert.equal(log, ['woke@10', 'continued', 'tie@10']);
});

/** Sends a fixed pattern over a network; returns its event log as text. */
function runPattern(seed: number, faults: Partial<NetworkFaults>) {
  const clock = new VirtualClock();
  const lines: string[] = [];
  const network = new SimulatedNetwork(clock, new SeededRandom(seed), faults, (event) => {
    const detail = event.kind === 'drop' ? event.reason : Buffer.from(event.frame).toString('hex');
    lines.push(`${event.time} ${event.kind} ${event.from}->${event.to} ${detail}`);
  });
  const names = ['a', 'b', 'c'];
  const endpoints = names.map((name) => network.endpoint(name));
  endpoints.forEach((endpoint) => endpoint.onFrame(() => undefined));
  for (let round = 0; round < 100; round++) {
    const sender = endpoints[round % 3]!;
    sender.send(names[(round + 1) % 3]!, Uint8Array.of(round, round % 3));
    if (round % 10 === 0) clock.runUntil(clock.now() + 3);
  }
  clock.runUntil(clock.now() + 100);
  return { log: lines.join('\n'), network };
}

const lossy: Partial<NetworkFaults> = {
  delayMsMin: 0, delayMsMax: 26, dropRate: 0.1, duplicateRate: 0.1,
};

test('same seed, same deliveries byte for byte; another seed, another history', () => {
  const first = runPattern(42, lossy);
  const second = runPattern(42, lossy);
  assert.is(first.log, second.log);
  assert.ok(first.log.split('\n').length > 100);
  assert.is.not(runPattern(43, lossy).log, first.log);
});

test('the lossy network drops, duplicates and reorders at about its rates', () => {
  const { log, network } = runPattern(7, lossy);
  const { sent, delivered, dropped, duplicated } = network.statistics;
  assert.is(sent, 100);
  assert.is(delivered + dropped, sent + duplicated);
  assert.ok(dropped >= 3 && dropped <= 20, `${dropped} dropped`);
  assert.ok(duplicated >= 3 && duplicated <= 20, `${duplicated} duplicated`);
  const rounds = log.split('\n').filter((line) => line.includes('deliver'))
    .map((line) => parseInt(line.split(' ')[3]!.slice(0, 2), 16));
  const inOrder = rounds.every((round, index) => index === 0 || round >= rounds[index - 1]!);
  assert.not.ok(inOrder, 'delays of 0-26 ms reorder frames');
});

test('a partition drops frames across it (also in flight); heal restores delivery', () => {
  const clock = new VirtualClock();
  const fixedDelay = { delayMsMin: 5, delayMsMax: 5 };
  const network = new SimulatedNetwork(clock, new SeededRandom(1), fixedDelay);
  const received: string[] = [];
  const [a, b, c] = ['a', 'b', 'c'].map((name) => {
    const endpoint = network.endpoint(name);
    endpoint.onFrame((from, frame) => { received.push(`${from}->${name}:${frame[0]}`); });
    return endpoint;
  });
  a!.send('b', Uint8Array.of(1));
  network.partition([['a'], ['b', 'c']]);
  clock.runUntil(10);
  a!.send('b', Uint8Array.of(2));
  b!.send('c', Uint8Array.of(3));
  c!.send('a', Uint8Array.of(4));
  clock.runUntil(20);
  assert.equal(received, ['b->c:3']);
  network.heal();
  network.isolate('c');
  a!.send('b', Uint8Array.of(5));
  b!.send('c', Uint8Array.of(6));
  clock.runUntil(30);
  assert.equal(received, ['b->c:3', 'a->b:5']);
  void c!.close();
  network.heal();
  b!.send('c', Uint8Array.of(7));
  clock.runUntil(40);
  // Counted by hand: 1 (cut in flight), 2, 4 (partition), 6 (isolated), 7 (down) were lost.
  assert.equal(network.statistics, { sent: 7, delivered: 2, dropped: 5, duplicated: 0 });
  const restarted = network.endpoint('c');
  restarted.onFrame((from, frame) => { received.push(`${from}->c':${frame[0]}`); });
  b!.send('c', Uint8Array.of(8));
  clock.runUntil(50);
  assert.equal(received.at(-1), "b->c':8");
});

test.run();
