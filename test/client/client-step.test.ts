// spec/client's step (the clerk that impl/clerk runs and the migration model explores): one
// test per retry rule, then a fast-check property over random server behaviour (fast-check
// prints the seed of a failure).
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialClient, stepClient } from '../../spec/client/client-step.js';
import type {
  ClientEffect, ClientInput, ClientState, ServerReply,
} from '../../spec/client/types.js';
import type { Config } from '../../spec/controller/types.js';
import { key2shard } from '../../spec/group/digest.js';
import type { ClientRequest } from '../../spec/group/types.js';

const servers = (gid: number) => [`g${gid}-0`, `g${gid}-1`, `g${gid}-2`];
/** Two shards: 'a' (97) is shard 1, 'b' (98) shard 0. */
const config = (num: number, shards: number[]): Config => ({
  num, shards, groups: Object.fromEntries([...new Set(shards)].filter((gid) => gid !== 0)
    .map((gid) => [gid, servers(gid)])),
});
const settings = { silentRoundsBeforeQuery: 2 };

function run(state: ClientState, ...inputs: ClientInput[]) {
  let current = state;
  let effects: readonly ClientEffect[] = [];
  for (const input of inputs) ({ state: current, effects } = stepClient(current, input));
  return { state: current, effects };
}

const put = { type: 'request', op: 'put', key: 'a', value: 'x' } as const;
const sendOf = (effects: readonly ClientEffect[]) => {
  const [effect] = effects;
  assert.is(effects.length, 1);
  assert.is(effect?.type, 'send');
  return effect as Extract<ClientEffect, { type: 'send' }>;
};
const reply = (request: ClientRequest, server: string, body: ServerReply): ClientInput =>
  ({ type: 'reply', request, server, reply: body });
const value = (text: string): ServerReply =>
  ({ type: 'result', result: { type: 'value', value: text } });
const ok: ServerReply = { type: 'result', result: { type: 'ok' } };
const wrongGroup: ServerReply =
  { type: 'result', result: { type: 'error', error: 'ErrWrongGroup' } };

test('a new client registers, asks for a configuration, then routes by key2shard', () => {
  assert.is(key2shard('a', 2), 1);
  const fresh = initialClient(settings, null, 1);
  const registering = stepClient(fresh, put);
  assert.equal(registering.effects, [{ type: 'register' }]);
  const registered = stepClient(registering.state, { type: 'registered', session: 7 });
  assert.equal(registered.effects, [{ type: 'query', pause: false }]);
  const routed = stepClient(registered.state, { type: 'config', config: config(1, [100, 101]) });
  assert.equal(routed.effects, [{
    type: 'send', gid: 101, server: 'g101-0', pause: false, retry: 0,
    request: { client: 7, seq: 1, op: 'put', key: 'a', value: 'x' },
  }]);
});

test('ok answers a put, a value a get; the next request takes the next seq', () => {
  const client = initialClient(settings, 3, 5, config(1, [100, 100]));
  const first = sendOf(stepClient(client, put).effects);
  const answered = run(client, put, reply(first.request, first.server, ok));
  assert.equal(answered.effects, [{ type: 'reply', outcome: { status: 'ok', value: '' } }]);
  assert.is(answered.state.outstanding, null);
  const get = { type: 'request', op: 'get', key: 'a', value: '' } as const;
  const second = sendOf(stepClient(answered.state, get).effects);
  assert.is(second.request.seq, 6);
  const read = run(answered.state, get, reply(second.request, second.server, value('x')));
  assert.equal(read.effects, [{ type: 'reply', outcome: { status: 'ok', value: 'x' } }]);
  // An answer of the other kind is no answer to this request: refused, never taken as one.
  const mixed = run(answered.state, get, reply(second.request, second.server, ok));
  assert.equal(mixed.effects, [{ type: 'reply',
    outcome: { status: 'refused', error: 'unexpected result ok' } }]);
});

test('wrong-leader: the named leader next, remembered; a leaderless round pauses', () => {
  const client = initialClient(settings, 0, 1, config(1, [100, 100]));
  const first = sendOf(stepClient(client, put).effects);
  const hinted = run(client, put, reply(first.request, 'g100-0',
    { type: 'wrong-leader', leader: 'g100-2' }));
  const second = sendOf(hinted.effects);
  assert.equal([second.server, second.request], ['g100-2', first.request]);
  const done = stepClient(hinted.state, reply(first.request, 'g100-2', ok));
  assert.equal(done.state.leaders, { 100: 'g100-2' });
  assert.is(sendOf(stepClient(done.state, put).effects).server, 'g100-2');
  // No hint: the next server in order; the third wrong-leader ends a round: pause.
  const noLeader = { type: 'wrong-leader', leader: null } as const;
  let state = stepClient(client, put).state;
  const pauses: boolean[] = [];
  for (const server of ['g100-0', 'g100-1', 'g100-2']) {
    const step = stepClient(state, reply(first.request, server, noLeader));
    pauses.push(sendOf(step.effects).pause);
    state = step.state;
  }
  assert.equal(pauses, [false, false, true]);
});

test('ErrWrongGroup: a configuration after a pause, then the new owner, with the same seq', () => {
  const client = initialClient(settings, 0, 1, config(1, [100, 100]));
  const first = sendOf(stepClient(client, put).effects);
  const refused = run(client, put, reply(first.request, first.server, wrongGroup));
  assert.equal(refused.effects, [{ type: 'query', pause: true }]);
  // An older configuration is not taken: the cache never goes back.
  const older = stepClient(refused.state, { type: 'config', config: config(0, [0, 0]) });
  assert.is(older.state.config?.num, 1);
  assert.is(sendOf(older.effects).gid, 100);
  const moved = stepClient(refused.state, { type: 'config', config: config(2, [100, 101]) });
  const retry = sendOf(moved.effects);
  assert.equal([retry.gid, retry.server, retry.request], [101, 'g101-0', first.request]);
});

test('silence: the next server; after two silent rounds, a configuration', () => {
  const client = initialClient(settings, 0, 1, config(1, [100, 100]));
  let step = stepClient(client, put);
  const targets: string[] = [];
  for (let attempt = 0; attempt < 6; attempt++) {
    targets.push(sendOf(step.effects).server);
    step = stepClient(step.state, { type: 'timeout' });
  }
  assert.equal(targets, ['g100-0', 'g100-1', 'g100-2', 'g100-0', 'g100-1', 'g100-2']);
  assert.equal(step.effects, [{ type: 'query', pause: true }]);
});

test('no owner in the configuration: ask again after a pause', () => {
  const client = initialClient(settings, 0, 1, config(1, [100, 100]));
  const first = sendOf(stepClient(client, put).effects);
  const waiting = run(client, put, reply(first.request, first.server, wrongGroup));
  const unowned = stepClient(waiting.state, { type: 'config', config: config(2, [0, 0]) });
  assert.equal(unowned.effects, [{ type: 'query', pause: true }]);
  assert.is(unowned.state.outstanding?.stage, 'config');
});

test('the deadline: unknown once an attempt was asked for, refused before any was', () => {
  const client = initialClient(settings, 0, 1, config(1, [100, 100]));
  const timedOut = run(client, put, { type: 'timeout' }, { type: 'deadline' });
  assert.equal(timedOut.effects, [{ type: 'reply',
    outcome: { status: 'unknown', error: 'put: no answer before the deadline' } }]);
  // No configuration cached: the deadline passes while it is asked for.
  const unsent = run(initialClient(settings, 0, 1), put, { type: 'deadline' });
  assert.equal(unsent.effects, [{ type: 'reply', outcome: { status: 'refused',
    error: 'put: the deadline passed before any request was sent' } }]);
});

test('the deadline with the shard unassigned in the cached configuration says so', () => {
  // Every group left (or none joined): the shard of 'a' (97 mod 2 = 1) has gid 0.
  const client = initialClient(settings, 0, 1, config(3, [0, 0]));
  const unsent = run(client, put, { type: 'deadline' });
  assert.equal(unsent.effects, [{ type: 'reply', outcome: { status: 'refused',
    error: 'put: shard 1 is unassigned in configuration 3 (no group serves it); ' +
      'no request was sent' } }]);
});

test('a definitive error refuses; a reply to another request is dropped', () => {
  const client = initialClient(settings, 0, 1, config(1, [100, 100]));
  const first = sendOf(stepClient(client, put).effects);
  const stale = run(client, put, reply({ ...first.request, seq: 0 }, first.server, ok));
  assert.equal(stale.effects, []);
  const expired: ServerReply =
    { type: 'result', result: { type: 'error', error: 'session-expired' } };
  const refused = run(client, put, reply(first.request, first.server, expired));
  assert.equal(refused.effects, [{ type: 'reply',
    outcome: { status: 'refused', error: 'session-expired' } }]);
});

/** A wrong-leader reply's hint: none, a server of the group, or one of no group (3). */
const hintOf = (gid: number, hint: number) => hint < 0 ? null : `g${gid}-${hint}`;

/** What a server does with one attempt, in the property below. */
const behaviour = fc.oneof(
  fc.constant({ kind: 'silent' as const }),
  fc.record({ kind: fc.constant('wrong-leader' as const), hint: fc.integer({ min: -1, max: 3 }) }),
  fc.constant({ kind: 'wrong-group' as const }),
  fc.constant({ kind: 'value' as const }),
  fc.record({ kind: fc.constant('config' as const), owner: fc.constantFrom(0, 100, 101) }),
);

// Whatever the servers do: one effect per step until the reply; every attempt of one
// operation carries one (session, seq) and goes to a server of the shard's owner in the
// cached configuration; seqs grow; ok only after a value; unknown only after an attempt was
// asked for, refused only before (these servers never refuse).
test('fast-check: retries keep the seq and follow the cached configuration', () => {
  fc.assert(fc.property(
    fc.array(fc.array(behaviour, { maxLength: 12 }), { minLength: 1, maxLength: 5 }),
    fc.array(fc.constantFrom('a', 'b', 'ab', 'b7'), { minLength: 5, maxLength: 5 }),
    (operations, keys) => {
      let state = initialClient({ silentRoundsBeforeQuery: 1 }, 4, 1, config(1, [100, 101]));
      let lastSeq = 0;
      let num = 1;
      operations.forEach((events, index) => {
        const request = { type: 'request', op: 'append', key: keys[index]!, value: 'v' } as const;
        let step = stepClient(state, request);
        let seq: number | null = null;
        let asked = false;
        for (let position = 0; ; position++) {
          assert.is(step.effects.length, 1);
          const effect = step.effects[0]!;
          if (effect.type === 'reply') {
            if (effect.outcome.status === 'unknown') assert.ok(asked);
            if (effect.outcome.status === 'refused') assert.ok(!asked);
            break;
          }
          if (effect.type === 'send') asked = true;
          const event = events[position] ?? { kind: 'deadline' as const };
          let input: ClientInput;
          if (event.kind === 'deadline') input = { type: 'deadline' };
          else if (effect.type === 'query') {
            const owner = event.kind === 'config' ? event.owner : 101;
            input = { type: 'config', config: config(++num, [owner, owner]) };
          } else {
            assert.is(effect.type, 'send');
            const send = effect as Extract<ClientEffect, { type: 'send' }>;
            const cached = step.state.config!;
            assert.is(send.gid, cached.shards[key2shard(send.request.key, 2)]);
            assert.ok(cached.groups[send.gid]!.includes(send.server));
            seq ??= send.request.seq;
            assert.equal([send.request.client, send.request.seq], [4, seq]);
            const body: ServerReply | null = event.kind === 'silent' || event.kind === 'config'
              ? null
              : event.kind === 'wrong-leader'
                ? { type: 'wrong-leader', leader: hintOf(send.gid, event.hint) }
                : event.kind === 'wrong-group' ? wrongGroup : ok;
            input = body === null ? { type: 'timeout' } : reply(send.request, send.server, body);
          }
          step = stepClient(step.state, input);
          if (step.effects[0]?.type === 'reply' && step.effects[0].outcome.status === 'ok') {
            assert.is(event.kind, 'value');
          }
        }
        if (seq !== null) assert.ok(seq > lastSeq);
        lastSeq = step.state.nextSeq - 1;
        state = step.state;
      });
    }), { numRuns: 300 });
});

test.run();
