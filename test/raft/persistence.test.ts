// The restart decision of spec/raft/persistence.ts: a saved commit index beyond what the
// snapshot and the entries hold means the storage lost durable entries; the node refuses to
// restart from it (the WAL reports it as damage) rather than clamping the commit index.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AssertionError } from '../../spec/assert.js';
import { initialNode } from '../../spec/raft/node.js';
import { restartNode, restartRefusal } from '../../spec/raft/persistence.js';
import type { Persisted } from '../../spec/raft/types.js';

const snapshot = (index: number) => ({ lastIncludedIndex: index, lastIncludedTerm: 1,
  data: 'S' });
const log = (count: number) => Array.from({ length: count }, () => ({ term: 1, command: 'c' }));

function persisted(commitIndex: number, snapshotIndex: number | null, entries: number):
  Persisted<string, string> {
  return {
    hardState: { currentTerm: 2, votedFor: 1, commitIndex },
    snapshot: snapshotIndex === null ? null : snapshot(snapshotIndex),
    entries: log(entries),
  };
}

test('a commit index within the snapshot and the entries restarts', () => {
  assert.is(restartRefusal(persisted(0, null, 0)), null);
  assert.is(restartRefusal(persisted(7, null, 7)), null);
  assert.is(restartRefusal(persisted(17, 17, 0)), null);
  assert.is(restartRefusal(persisted(12, 10, 3)), null);
  // Raft does not need the commit index saved: one behind the log is fine.
  assert.is(restartRefusal(persisted(3, 10, 3)), null);
});

test('a commit index beyond them (a lost snapshot) is refused, naming both indexes', () => {
  assert.is(restartRefusal(persisted(17, null, 5)),
    'saved commit 17 beyond the log, which ends at 5: entries this replica made durable are lost');
  assert.match(restartRefusal(persisted(17, 4, 12)) ?? '',
    /^saved commit 17 beyond the log, which ends at 16:/);
});

test('restartNode applies what a restartable state commits and asserts on the rest', () => {
  const node = initialNode<string, string>(1, 3);
  const restarted = restartNode(node, persisted(12, 10, 3), {});
  assert.is(restarted.node.commitIndex, 12);
  assert.equal(restarted.effects.slice(0, 2).map((effect) => effect.type),
    ['restoreSnapshot', 'apply']);
  assert.throws(() => restartNode(node, persisted(17, null, 5), {}),
    (error: unknown) => error instanceof AssertionError &&
      error.message.startsWith('saved commit 17 beyond the log'));
});

test.run();
