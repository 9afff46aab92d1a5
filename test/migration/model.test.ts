// The `migration` model: its state space at small bounds (exact counts), its codec, its
// invariants on hand-made states, and scenarios (catalog.test.ts has the known bugs).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { WordReader, WordWriter } from '../../checker/words.js';
import { createMigrationModel } from '../../models/migration/model.js';
import type { MigrationBounds } from '../../models/migration/model-state.js';

const small: MigrationBounds = {
  groups: 2, shards: 2, clients: 1, ops: 1, maxReconfigs: 1, maxCrashes: 1, maxDuplicates: 1,
  maxExpiries: 0, maxReuses: 0, partBytes: 64,
};

test('initial state: configuration 1 published, g1 serves every shard from epoch 1', () => {
  const [initial] = createMigrationModel(small).initialStates();
  assert.is(initial!.controller.current, 1);
  assert.equal(initial!.controller.configs[1]!.shards, [1, 1]);
  assert.equal(initial!.groups[0]!.shards.map((record) => [record.phase, record.identity?.epoch]),
    [['serving', 1], ['serving', 1]]);
  assert.equal(initial!.groups[1]!.shards.map((record) => record.phase), ['absent', 'absent']);
});

// The counts come from this code (no independent source). They grew when leaving every group
// became explorable (issue 9: 313, 33 and 1,598 before), then with values and clients that
// learn recorded configurations (issue 10: 794, 69 and 3,578 before), then twice in issue 20
// (1,453, 123 and 15,493 before): the model's driver became stepDriver (every plan is followed
// by the groups' facts queries, answered one group at a time, as the runtime's driver asks:
// more states), and the clients spec/client's step (a client learns a configuration only when
// its step asks for one, as the clerk does, no longer at any moment: fewer).
test('exact distinct-state counts at small bounds (all invariants hold)', () => {
  const cases: [Partial<MigrationBounds>, number][] = [
    [{}, 2140],
    [{ maxCrashes: 0, maxDuplicates: 0 }, 144],
    [{ clients: 2 }, 18205],
  ];
  for (const [change, distinct] of cases) {
    const result = breadthFirstSearch(createMigrationModel({ ...small, ...change }));
    assert.is(result.result, 'ok', JSON.stringify(change));
    assert.is(result.distinctStates, distinct, JSON.stringify(change));
  }
});

test('the hand codec round-trips every state of a small space', () => {
  const model = createMigrationModel({ ...small, clients: 2, maxReconfigs: 2 });
  const writer = new WordWriter();
  let frontier = [...model.initialStates()];
  let checked = 0;
  for (let depth = 0; depth < 7; depth++) {
    const next = [];
    for (const state of frontier) {
      writer.reset();
      model.codec.encode(state, writer);
      const decoded = model.codec.decode(new WordReader(writer.words, 0, writer.length));
      assert.equal(decoded, state);
      checked++;
      for (const action of model.actions(state)) {
        const successor = model.next(state, action);
        if (successor !== null && next.length < 400) next.push(successor);
      }
    }
    frontier = next;
  }
  assert.ok(checked > 1000, `only ${checked} states checked`);
});

test('each invariant fails on a hand-made bad state (none is vacuous)', () => {
  const model = createMigrationModel(small);
  const initial = model.initialStates()[0]!;
  const failing = (state: typeof initial) =>
    model.invariants
      .filter((invariant) => !invariant.holds(state))
      .map((invariant) => invariant.name);
  assert.equal(failing(initial), []);
  const g1 = initial.groups[0]!;
  const g2 = initial.groups[1]!;
  const frozen = { ...g1, shards: [{ ...g1.shards[0]!, phase: 'frozen' as const }, g1.shards[1]!] };
  assert.equal(failing({ ...initial, groups: [frozen, g2] }), ['UnaffectedServed', 'GarbageBound']);
  const kept = { ...g2.shards[0]!, kv: g2.shards[0]!.kv.set('b', 'A') };
  const leftover = { ...g2, shards: [kept, g2.shards[1]!] };
  assert.equal(failing({ ...initial, groups: [g1, leftover] }), ['GarbageBound']);
  const twoServers = { ...g2, shards: [g1.shards[0]!, g2.shards[1]!] };
  assert.equal(failing({ ...initial, groups: [g1, twoServers] }), ['AtMostOneServer']);
  const history = initial.history;
  const flagged = (change: Partial<typeof history>) =>
    failing({ ...initial, history: { ...history, ...change } });
  assert.equal(flagged({ unservedAnswer: true }), ['OnlyServerAnswers']);
  assert.equal(flagged({ staleRead: true }), ['ReadsCurrent']);
  assert.equal(flagged({ applied: [2] }), ['ExactlyOnce']);
  // Client 0's append of 'A' to shard 0 (key 'b') took effect, but g1 holds ''.
  const acknowledged = { ...initial.clients[0]!, done: 1, results: ['A'] };
  const written = { ...history, applied: [1], first: ['A'], ghost: ['A', ''] };
  assert.equal(failing({ ...initial, clients: [acknowledged], history: written }),
    ['NoLostWrite']);
  // The client replaced request 0 by another under seq 0 and saw it acknowledged, but the
  // effect was the first request's.
  const withWrite = { ...g1, shards: [{ ...g1.shards[0]!, kv: g1.shards[0]!.kv.set('b', 'A') },
    g1.shards[1]!] };
  const reused = { ...acknowledged, reusedSeq: 0 };
  assert.equal(failing({ ...initial, groups: [withWrite, g2], clients: [reused],
    history: written }), ['ExactlyOnce']);
  // During a change, a source may stay frozen only for a move of the intent: a record frozen
  // for another identity (here an older epoch) is data that no delete will ever drop.
  const move = { shard: 0, epoch: 2, src: 1, dst: 2 };
  const controller = { ...initial.controller, next: { num: 2, moves: [move] } };
  const frozenFor = (identity: typeof move) => ({
    ...initial, controller,
    groups: [{ ...g1, shards: [{ ...g1.shards[0]!, phase: 'frozen' as const, identity,
      frozenDigest: 'aaaaaaaaaaaaaaaa' }, g1.shards[1]!] }, g2],
  });
  assert.equal(failing(frozenFor(move)), []);
  assert.equal(failing(frozenFor({ ...move, epoch: 1 })), ['GarbageBound']);
  assert.equal(failing(frozenFor({ ...move, dst: 3 })), ['GarbageBound']);
  // The driver holds, for the move, an image other than the one src froze.
  const image = { kv: g1.shards[0]!.kv, dedup: g1.shards[0]!.dedup, sessionFloor: 0,
    digest: 'bbbbbbbbbbbbbbbb' };
  const driver = { num: 2, progress: [{ step: 'install' as const, image }] };
  assert.equal(failing({ ...frozenFor(move), driver }), ['OneImagePerIdentity']);
});

// Raft dissertation §6.3: after a session expires, a late duplicate of its last request must
// be refused. With a move in between, the refusal depends on the floor travelling with the
// image. The same bounds find the violation when expiry forgets the session.
test('ExactlyOnce holds with session expiry, across a move; the bug switch breaks it', () => {
  const bounds = { ...small, clients: 2, maxCrashes: 0, maxExpiries: 1 };
  const fixed = breadthFirstSearch(createMigrationModel(bounds));
  assert.is(fixed.result, 'ok');
  assert.ok(fixed.distinctStates > 1000, `only ${fixed.distinctStates} states`);
  const broken = breadthFirstSearch(createMigrationModel(bounds, 'expiry-forgets-session'));
  assert.is(broken.invariant, 'ExactlyOnce');
  assert.is(broken.path?.actionIndexes.length, 3);
});

// CONTRACT: leaving every group is allowed; the shards' data stays frozen at the last holder
// until a later configuration assigns them, and then moves from there.
test('leave every group, then join another: the data waits frozen at g1 and moves to g2', () => {
  const bounds = { ...small, clients: 1, ops: 2, maxReconfigs: 2 };
  const model = createMigrationModel(bounds);
  let state = model.initialStates()[0]!;
  const run = (label: string) => {
    const action = model.actions(state).find((candidate) => model.label(candidate) === label);
    const next = action === undefined ? null : model.next(state, action);
    assert.ok(next !== null, `${label} is not enabled`);
    state = next;
    const broken = model.invariants.filter((invariant) => !invariant.holds(state));
    assert.equal(broken.map((invariant) => invariant.name), [], `after ${label}`);
  };
  // Once the plan applies, the driver asks the groups for their facts before any step.
  for (const label of ['ClientRequest(client 0)', 'Leave(gid 1)', 'PlanNext',
    'Query(shard 0, gid 1)', 'Query(shard 1, gid 1)', 'Freeze(shard 0)', 'Freeze(shard 1)',
    'Publish']) run(label);
  assert.equal(state.controller.configs[state.controller.current]!.shards, [0, 0]);
  assert.equal(state.groups[0]!.shards.map((record) => record.phase), ['frozen', 'frozen']);
  const requests = model.actions(state).filter((action) => action.type === 'ClientRequest');
  for (const action of requests) {
    const next = model.next(state, action);
    assert.ok(next === null || next.groups === state.groups, 'no group serves the shard');
  }
  for (const label of ['Join(gid 2)', 'PlanNext']) run(label);
  assert.equal(state.controller.next!.moves.map((identity) => [identity.src, identity.dst]),
    [[1, 2], [1, 2]]);
  for (const label of ['Query(shard 0, gid 2)', 'Query(shard 0, gid 1)',
    'Query(shard 1, gid 1)', 'Query(shard 1, gid 2)',
    'Freeze(shard 0)', 'Install(shard 0)', 'Delete(shard 0)',
    'Freeze(shard 1)', 'Install(shard 1)', 'Delete(shard 1)', 'Publish']) run(label);
  assert.equal(state.groups[1]!.shards.map((record) => record.phase), ['serving', 'serving']);
  assert.equal(state.groups[0]!.shards.map((record) => record.phase), ['absent', 'absent']);
  const written = state.groups[1]!.shards.flatMap((record) => [...record.kv.entries()]);
  assert.equal(written, [['b', 'A']], 'the write acknowledged before the leave survived');
});

// The clients run spec/client's step: a client whose configuration is old is turned away by
// the frozen source (ErrWrongGroup), asks for the configuration, and retries at the new owner
// with the same seq until the install lets it in.
test('a client with an old configuration: ErrWrongGroup, a configuration, the same seq at dst',
  () => {
    const model = createMigrationModel({ ...small, clients: 1, ops: 2, maxCrashes: 0 });
    let state = model.initialStates()[0]!;
    const run = (label: string) => {
      const action = model.actions(state).find((candidate) => model.label(candidate) === label);
      const next = action === undefined ? null : model.next(state, action);
      assert.ok(next !== null, `${label} is not enabled`);
      state = next;
    };
    const outstanding = () => state.clients[0]!.actor.outstanding!;
    for (const label of ['ClientRequest(client 0)', 'Join(gid 2)', 'PlanNext']) run(label);
    assert.equal(state.controller.next!.moves.map((identity) => identity.shard), [1]);
    // Request 1 (key 'c', shard 1) is routed by configuration 1, to g1.
    assert.equal([outstanding().seq, outstanding().target?.gid], [1, 1]);
    // The driver asks src and dst for their facts before it freezes (stepDriver).
    for (const label of ['Query(shard 1, gid 1)', 'Query(shard 1, gid 2)']) run(label);
    run('Freeze(shard 1)');
    run('ClientRequest(client 0)');
    assert.is(state.clients[0]!.actor.config?.num, 2);
    assert.equal([outstanding().seq, outstanding().target?.gid], [1, 2]);
    // Not installed yet: g2 turns it away too; the client asks again and stays with g2.
    run('ClientRequest(client 0)');
    assert.equal([state.clients[0]!.done, outstanding().seq, outstanding().target?.gid],
      [1, 1, 2]);
    run('Install(shard 1)');
    run('ClientRequest(client 0)');
    // The append answered ok (its result ''), the get read the empty key; a get takes no
    // effect, so only the append counts as applied.
    assert.equal([state.clients[0]!.done, state.clients[0]!.results], [2, ['', '']]);
    assert.equal(state.history.applied, [1, 0]);
  });

test.run();
