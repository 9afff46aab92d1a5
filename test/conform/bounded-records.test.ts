// Issue 23 item 4: what conform keeps for the checks across records (applied entries, state
// digests, entries once durable) is dropped below every replica's durable snapshot, so a
// long trace keeps a window; a divergence within the window is still found.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AppliedDigestRecord } from '../../invariants/replica-agreement.js';
import { CommittedRecord } from '../../invariants/run-views.js';
import { CompactionFloors } from '../../verify/conform/compaction-floors.js';
import { conform } from '../../verify/conform/conform.js';
import { textSource } from '../../verify/conform/trace-lines.js';
import { simulationOptions } from '../../verify/simulate/options.js';
import { runSimulation } from '../../verify/simulate/run.js';
import { shellRuntime } from '../../verify/simulate/shell-runtime.js';

test('a group\'s floor is its least member\'s durable snapshot; an ended trace holds none', () => {
  const floors = new CompactionFloors();
  const members = ['g1-0', 'g1-1', 'g1-2'];
  assert.is(floors.note('g1-0', 'g1', members, 50), null, 'g1-1 and g1-2 not seen: floor 0');
  assert.is(floors.note('g1-1', 'g1', members, 40), null);
  assert.is(floors.note('g1-2', 'g1', members, 70), 40);
  assert.is(floors.note('g1-2', 'g1', members, 90), null, 'g1-1 still holds it at 40');
  assert.is(floors.note('g1-1', 'g1', members, Infinity), 50, 'g1-1 ended');
  assert.is(floors.note('g1-0', 'g1', members, Infinity), 90);
  assert.is(floors.note('g1-2', 'g1', members, Infinity), null, 'all ended: nothing to drop');
  const pair = ['g2-0', 'g2-1'];
  assert.is(floors.note('g2-0', 'g2', pair, 10), null);
  assert.is(floors.note('g2-1', 'g2', pair, 30), 10);
  assert.is(floors.note('g2-x', 'g2', pair, 5), null, 'a node its peers do not name counts too');
  assert.is(floors.note('g2-0', 'g2', pair, 40), null, 'g2-x holds it at 5');
});

test('a long run of applies keeps a window, and a mismatch within it is still found', () => {
  const committed = new CommittedRecord<string>();
  const digests = new AppliedDigestRecord();
  const window = 500;
  let most = 0;
  for (let index = 1; index <= 200_000; index++) {
    for (const server of ['n0', 'n1']) {
      assert.is(committed.note(index, { term: 1, command: `c${index}`, server }), null);
      assert.is(digests.note(index, { digest: `d${index}`, replica: server }), null);
    }
    committed.forgetBelow(index - window);
    digests.forgetBelow(index - window);
    most = Math.max(most, committed.retained, digests.retained);
  }
  assert.ok(most <= window + 1, `kept ${most} indices`);
  const last = 200_000 - window;
  assert.equal(committed.note(last, { term: 2, command: 'other', server: 'n2' }),
    { term: 1, command: `c${last}`, server: 'n0' });
  assert.equal(digests.note(last, { digest: 'other', replica: 'n2' }),
    { digest: `d${last}`, replica: 'n0' });
  // Below the window nothing is compared, and that is counted, never passed silently.
  assert.is(committed.note(last - 1, { term: 2, command: 'other', server: 'n2' }), null);
  assert.is(committed.uncompared, 1);
  assert.is(digests.note(last - 1, { digest: 'other', replica: 'n2' }), null);
  assert.is(digests.uncompared, 1);
});

test('a traced run that compacts keeps fewer records than it applied (seed 6)', async () => {
  const result = await runSimulation(simulationOptions(6, { steps: 1_500, trace: true,
    faults: 'all' }), shellRuntime);
  assert.is(result.failure, null);
  const nodes = new Map([...result.traces!].map(([node, lines]) =>
    [node, textSource(lines.join('\n') + '\n')] as const));
  let snapshots = 0;
  const highest = new Map<string, number>();
  for (const [node, lines] of result.traces!) {
    const group = node.slice(0, node.lastIndexOf('-'));
    for (const line of lines) {
      if (line.includes('"saveSnapshot"')) snapshots++;
      const record = JSON.parse(line) as { actor: string; input: { index?: number } };
      if (record.actor !== 'machine') continue;
      highest.set(group, Math.max(highest.get(group) ?? 0, record.input.index ?? 0));
    }
  }
  assert.ok(snapshots > 0, 'the run compacts');
  const checked = conform({ nodes, history: null });
  assert.is(checked.divergence, null);
  assert.is(checked.retained.uncompared, 0, 'no replica was seen below its group\'s floor');
  // Keeping everything is an applied entry and a state digest per index of every group.
  const everything = 2 * [...highest.values()].reduce((sum, index) => sum + index, 0);
  assert.ok(checked.retained.records * 2 < everything,
    `kept ${checked.retained.records} of ${everything}`);
});

test.run();
