// Why an invariant fails (issue 11.7): the `explain` witness of each kept counterexample, as
// `replay --json` reports it. Each expected sentence was checked by hand against the printed
// trace (`shardkv replay FILE` shows the steps; e.g. forget-vote-on-restart's step 9 sets
// elected[1] to {"s1", "s3"}); they are pinned from the code as regressions.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import type { AnyModel } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import { executePath } from '../../checker/trace.js';
import { migrationDefinition } from '../../models/migration/model.js';
import { runCli } from '../helpers/cli.js';

const witnesses: Readonly<Record<string, string>> = {
  'raft/forget-vote-on-restart': 's1 and s3 both became leader in term 1',
  'raft/commit-prev-term':
    'leader s2 of term 4 holds (term 2, no-op) at index 1, where (term 1, no-op) committed in ' +
    'term 3',
  'raft/truncate-on-every-append':
    'index 2 (term 1, v1) committed in term 1 is durable on 1 of 3 servers (s1), a quorum is 2',
  'raft/follower-skips-apply': 's2 applied 0 entries, its commitIndex is 1',
  'migration/skip-freeze': 'shard 1 is served by gid 1 and gid 2',
  'migration/reinstall-overwrites':
    'key "c" of shard 1: the writes that took effect make "E", its holder gid 2 has ""',
  'migration/delete-before-receipt':
    'no group holds shard 1, whose key "c" the writes that took effect made "E"',
  'migration/dedup-not-migrated': "client 1's request 1 took effect twice",
  // Leave(gid 1) and its plan, Join(gid 1), shard 0 frozen, then a late copy of the plan
  // skips to configuration 3, where shard 0 stays at gid 1: frozen, served by no one.
  'migration/skip-config':
    'shard 0 does not move, but its owner gid 1 in configuration 1 holds it frozen',
  'controller/non-minimal-rebalance': 'configuration 2 moved 7 shards, the lower bound is 6',
};

for (const [name, witness] of Object.entries(witnesses)) {
  test(`replay names why the invariant fails: ${name}`, async () => {
    const run = await runCli('replay', `traces/${name}.trace.json`, '--json');
    assert.is(run.code, 1);
    assert.is(run.json()['witness'], witness);
    const text = await runCli('replay', `traces/${name}.trace.json`);
    assert.match(text.stdout, `fails: ${witness}`);
  });
}

// ReadsCurrent is never the first invariant a kept trace breaks: find its own violation.
test('ReadsCurrent: the witness names the Get, its result and the value it should have read', () => {
  const bug = 'skip-freeze';
  const buggy = migrationDefinition.create(resolveParams(migrationDefinition, bug, {}), bug);
  const invariants = buggy.invariants.filter((invariant) => invariant.name === 'ReadsCurrent');
  const model: AnyModel = { ...buggy, invariants };
  const result = breadthFirstSearch(model, { deadlock: false });
  assert.is(result.invariant, 'ReadsCurrent');
  const { states } = executePath(model, result.path!);
  const witness = invariants[0]!.explain!(states.at(-1));
  const shape = new RegExp(
    '^client (\\d)\'s Get (\\d) of key "(\\w)" \\(shard (\\d)\\) returned "(\\w*)", ' +
      'the writes that took effect make "(\\w*)"$',
  );
  const match = shape.exec(witness);
  assert.ok(match, witness);
  assert.is.not(match[5], match[6], 'what was read differs from what should have been');
});

test.run();
