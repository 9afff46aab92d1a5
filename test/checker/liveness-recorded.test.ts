// The liveness pass on the graph the safety search recorded (issue 24 point 7): one-thread
// BFS keeps every edge as it explores (checker/graph.ts), so `check` expands no state twice.
// The recorded graph must be the one the pass builds on its own (the invariants, the
// `sometimes` properties and the deadlock check change nothing in it), arrays and all.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { depthFirstSearch } from '../../checker/dfs.js';
import { graphRecorderFor, type StateGraph } from '../../checker/graph.js';
import { GrowableSmallInt, IdTable } from '../../checker/graph-storage.js';
import { buildStateGraph, checkLiveness } from '../../checker/liveness.js';
import type { AnyModel } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import { createTwoPhaseModel } from '../../models/calibration/twophase.js';
import { raftDefinition } from '../../models/raft/index.js';
import { runCli } from '../helpers/cli.js';
import { mailboxDefinition } from './liveness-models.js';

const arrays = (graph: StateGraph) => ({
  edgeStart: [...graph.edgeStart],
  edgeTarget: [...graph.edgeTarget],
  edgeAction: [...graph.edgeAction],
  edgeClass: [...graph.edgeClass],
  parent: [...graph.parent],
  parentAction: [...graph.parentAction],
  propertyBits: [...graph.propertyBits],
  classNames: graph.classNames,
});

const raftBug = (bug: string) =>
  raftDefinition.create(resolveParams(raftDefinition, bug, {}), bug) as AnyModel;

const models: readonly [string, () => AnyModel][] = [
  // The fast path (successorWords), with invariants and `sometimes` properties.
  ['twophase 4', () => createTwoPhaseModel(4)],
  // State objects, a state constraint (edges out of the bounds), classes by message.
  ['raft leader-never-steps-down', () => raftBug('leader-never-steps-down')],
  ['mailbox per-family', () => mailboxDefinition.build({ fairness: 'per-family' })],
];

for (const [name, create] of models) {
  test(`${name}: the safety search records the graph the liveness pass builds`, () => {
    const model = create();
    const search = breadthFirstSearch(model, { recordGraph: true });
    assert.is(search.result, 'ok');
    const recorded = search.graph!;
    const built = buildStateGraph(model);
    assert.is(recorded.stateCount, search.distinctStates);
    assert.is(recorded.statesGenerated, search.statesGenerated);
    assert.equal(arrays(recorded), arrays(built));
    const strip = ({ seconds: _s, graphBytes: _b, ...rest }: ReturnType<typeof checkLiveness>) =>
      rest;
    assert.equal(strip(checkLiveness(model, {}, recorded)), strip(checkLiveness(model)));
  });
}

test('twophase 4: 1,568 states, 5,377 edges, as the separate pass counted before recording', () => {
  const graph = breadthFirstSearch(createTwoPhaseModel(4), { recordGraph: true }).graph!;
  assert.is(graph.stateCount, 1568);
  assert.is(graph.edgeCount, 5377);
  assert.ok(graph.edgeAction instanceof Int8Array && graph.edgeClass instanceof Int8Array,
    'action indexes and classes below 128 take a byte each');
});

test('no graph after a violation, from dfs, with a view, nor for a resumed search', () => {
  const twoPhase = createTwoPhaseModel(3) as AnyModel;
  const violating: AnyModel = { ...twoPhase, invariants: [{ name: 'Never', holds: () => false }] };
  assert.is(breadthFirstSearch(violating, { recordGraph: true }).graph, undefined);
  assert.is(depthFirstSearch(twoPhase, { recordGraph: true }).graph, undefined);
  assert.is(breadthFirstSearch(twoPhase).graph, undefined, 'only when asked');
  // A view may merge states that fairness tells apart: the pass builds the graph by encoding.
  const viewed: AnyModel = { ...twoPhase, writeView: twoPhase.codec.encode };
  assert.is(breadthFirstSearch(viewed, { recordGraph: true }).graph, undefined);
  assert.is(buildStateGraph(viewed).stateCount, 288);
  // Resumed states have no parents (no BFS tree to hang a lasso's prefix on).
  const resumed = { directory: undefined!, everySeconds: 0, resume: true, identity: '' };
  assert.is(graphRecorderFor(twoPhase, { recordGraph: true, checkpoint: resumed }), undefined);
  assert.ok(graphRecorderFor(twoPhase, { recordGraph: true }));
});

test('check: the liveness figures of the recorded graph, on 2 workers and by dfs', async () => {
  const figures = async (...flags: string[]) => {
    const run = await runCli('check', 'twophase', '--quiet', '--json', ...flags);
    assert.is(run.code, 0);
    const { graphBytes: _bytes, seconds: _seconds, ...rest } =
      run.json<{ liveness: Record<string, unknown> }>().liveness;
    return rest;
  };
  const recorded = await figures();
  assert.is(recorded['edges'], 761);
  assert.equal(await figures('--workers', '2'), recorded);
  assert.equal(await figures('--strategy', 'dfs'), recorded);
});

test('small integer arrays widen to 16 and 32 bits, keeping every value', () => {
  const values = [0, -1, 127, -128, 300, -32768, 70_000, -1, 2 ** 31 - 1];
  const array = new GrowableSmallInt();
  const widths: number[] = [];
  for (const value of values) {
    array.push(value);
    widths.push(array.toArray().BYTES_PER_ELEMENT);
  }
  assert.equal([...array.toArray()], values);
  assert.equal(widths, [1, 1, 1, 1, 2, 2, 4, 4, 4]);
  for (let index = 0; index < 10_000; index++) array.push(index % 5);
  assert.is(array.toArray().length, values.length + 10_000);
  assert.is(array.toArray()[values.length + 9_999], 4);
});

test('the id table as a visited set: new fingerprints get ids 0, 1, ...; known ones theirs', () => {
  const table = new IdTable();
  const count = 20_000;
  for (let index = 0; index < count; index++) assert.ok(table.add(index + 1, index * 7));
  for (let index = count - 1; index >= 0; index -= 997) {
    assert.not.ok(table.add(index + 1, index * 7));
    assert.is(table.foundId, index);
  }
  assert.is(table.size, count);
  assert.is(table.fingerprints().length, 2 * count);
});

test.run();
