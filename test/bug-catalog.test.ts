// One bug mechanism (issue 20 item 6): each protocol's catalog table names its bugs once; the
// switches are typed from it, every model lists exactly its catalog's entries, and a table or
// a model that names a bug or a bound wrongly is refused when it loads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defineModel, integer } from '../checker/define-model.js';
import { assertCatalog, bugSwitches, switchesOf } from '../spec/bug-catalog.js';
import { controllerBugNames, controllerBugs } from '../spec/controller/bugs.js';
import { migrationBugs, migrationSwitchNames } from '../spec/migration/bugs.js';
import { raftBugs } from '../spec/raft/bugs.js';
import { modelBugs } from '../models/migration/model-state.js';
import { modelDefinitions } from '../models/registry.js';

const names = (catalog: readonly { name: string }[]) => catalog.map((bug) => bug.name);

test('every catalogued bug is listed by exactly one model, with its entry', () => {
  const listed = modelDefinitions.flatMap((definition) => definition.bugs);
  const catalogued = [...raftBugs, ...controllerBugs, ...migrationBugs];
  assert.equal(new Set(names(listed)).size, listed.length, 'no bug is listed twice');
  assert.equal(new Set(names(listed)), new Set(names(catalogued)));
  for (const bug of listed) {
    const entry = catalogued.find((candidate) => candidate.name === bug.name)!;
    assert.is(bug.description, entry.description);
    assert.equal(bug.breaks, entry.breaks);
  }
  const byModel = (model: string) =>
    names(modelDefinitions.find((definition) => definition.name === model)!.bugs);
  assert.equal(byModel('raft'), names(raftBugs));
  assert.equal(byModel('controller'),
    ['non-minimal-rebalance', 'non-minimal-by-gid-order', 'query-answers-older']);
  assert.equal(byModel('migration'), names(migrationBugs));
});

test('the migration model switches a bug on in its own protocol, with its context', () => {
  assert.equal(modelBugs(undefined), { controller: {}, migration: {} });
  assert.equal(modelBugs('skip-config'), { controller: { 'skip-config': true }, migration: {} });
  assert.equal(modelBugs('skip-freeze'), { controller: {}, migration: { 'skip-freeze': true } });
  assert.equal(modelBugs('install-accepts-different-image').migration, {
    'install-accepts-different-image': true,
    'recovery-needs-source-after-delete': true,
    'migrate-returns-empty-after-gc': true,
  });
  assert.ok(!migrationSwitchNames.some((name) => controllerBugNames.includes(name as never)));
  assert.equal(bugSwitches(controllerBugNames, ['skip-freeze', 'skip-config']),
    { 'skip-config': true });
  assert.throws(() => switchesOf(migrationBugs, 'no-such-bug'), /no-such-bug is catalogued/);
});

test('a table with a repeated name, a bad name or an unknown context is refused', () => {
  const bug = { name: 'lost-write', description: 'loses a write', breaks: ['NoLostWrite'] };
  assert.throws(() => assertCatalog([bug, bug], [bug]), /catalogued once/);
  assert.throws(() => assertCatalog([{ ...bug, name: 'lostWrite' }], []), /kebab-case/);
  assert.throws(() => assertCatalog([{ ...bug, breaks: [] }], []), /breaks an invariant/);
  const chained = { ...bug, context: ['no-such-bug'] };
  assert.throws(() => assertCatalog([chained], [chained]), /context no-such-bug/);
});

test('defineModel refuses a bug bound that names no parameter, and an unknown bug', () => {
  const declaration = {
    name: 'counter',
    description: 'counts to maxCount',
    params: { maxCount: integer({ description: 'the bound', default: 2, min: 0, max: 9 }) },
    create: ({ maxCount }: { maxCount: number }) => ({
      initialStates: () => [0],
      actions: () => ['Inc'],
      next: (count: number) => (count < maxCount ? count + 1 : null),
      invariants: { Small: (count: number) => count < 5 },
    }),
  };
  const typo = { name: 'off-by-one', description: 'one more', breaks: ['Small'] };
  assert.throws(
    // @ts-expect-error: in a literal the misspelt bound is a type error as well.
    () => defineModel({ ...declaration, bugs: [{ ...typo, bounds: { maxCounts: 6 } }] }),
    /counter bug off-by-one: no parameter maxCounts/,
  );
  const counter = defineModel({ ...declaration, bugs: [{ ...typo, bounds: { maxCount: 6 } }] });
  assert.equal(counter.bugs[0]!.bounds, { 'max-count': 6 });
  assert.throws(() => counter.create({ 'max-count': 2 }, 'no-such-bug'), /has no bug/);
});

test.run();
