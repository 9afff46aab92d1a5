/**
 * The shape of a protocol's known-bug catalog (DESIGN §3). Each protocol keeps one table
 * (spec/raft/bugs.ts, spec/controller/bugs.ts, spec/migration/bugs.ts): per bug its name, what
 * it does, the invariants a counterexample breaks and the bounds its model finds it at. The
 * switch record the protocol consults is typed from the table's names, so a bug is named once,
 * in its entry; its switch is read at exactly one place, the one the entry's comment names.
 * The models' definitions, `shardkv bugs`, the simulator and `replay --runtime` read the tables.
 */
import { assert } from './assert.js';

export interface KnownBug {
  /** Kebab-case, as `--bug` takes it. */
  readonly name: string;
  readonly description: string;
  /** Invariants (or temporal properties) a counterexample may violate. */
  readonly breaks: readonly string[];
  /**
   * The bounds its model checks it at, by the model's parameter names (`maxTerm`, the flag
   * `--max-term`); the model's defaults fill the rest, and the user's flags still win.
   */
  readonly bounds?: Readonly<Record<string, number | boolean | string>>;
  /** The model that checks it when it is not the protocol's own (a controller bug only the
   * `migration` model's driver reveals). */
  readonly model?: string;
  /** Other switches of the same model turned on with this one: the chain it is checked in. */
  readonly context?: readonly string[];
}

/** Which of a protocol's bugs are on: each switch is off unless named. */
export type BugSwitches<Name extends string> = { readonly [Bug in Name]?: boolean };

/** The names of a catalog, in its order. */
export function bugNames<const Catalog extends readonly KnownBug[]>(
  catalog: Catalog,
): readonly Catalog[number]['name'][] {
  return catalog.map((bug) => bug.name);
}

/** Whether `name` is one of `names`, narrowing it. */
export function isBugName<Name extends string>(
  names: readonly Name[],
  name: string,
): name is Name {
  return (names as readonly string[]).includes(name);
}

/** The switches of `names` (a protocol's) that `on` turns on; the others stay off. */
export function bugSwitches<Name extends string>(
  names: readonly Name[],
  on: readonly string[],
): BugSwitches<Name> {
  const switches: { [Bug in Name]?: boolean } = {};
  for (const name of on) if (isBugName(names, name)) switches[name] = true;
  return switches;
}

/** The switches checking `name` turns on: its own and its context's (none for no bug). */
export function switchesOf(catalog: readonly KnownBug[], name: string | undefined): string[] {
  if (name === undefined) return [];
  const bug = catalog.find((known) => known.name === name);
  assert(bug !== undefined, `bug ${name} is catalogued`);
  return [bug.name, ...(bug.context ?? [])];
}

/**
 * A table's own checks, run when it loads: names are kebab-case and unique, every entry
 * breaks something, and a context names bugs of `models` (the tables its model reads).
 */
export function assertCatalog(catalog: readonly KnownBug[], models: readonly KnownBug[]): void {
  const names = new Set<string>();
  for (const bug of catalog) {
    assert(/^[a-z]+(-[a-z]+)*$/.test(bug.name), `bug name ${bug.name} is kebab-case`);
    assert(!names.has(bug.name), `bug ${bug.name} is catalogued once`);
    assert(bug.breaks.length > 0, `bug ${bug.name} breaks an invariant`);
    names.add(bug.name);
    for (const other of bug.context ?? []) {
      assert(other !== bug.name, `bug ${bug.name} is not its own context`);
      assert(models.some((known) => known.name === other), `context ${other} is catalogued`);
    }
  }
}
