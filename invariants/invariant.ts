/**
 * One invariant of the library: the name every tool prints (`check`, `simulate`, `conform`,
 * the bug catalog's `breaks`), a pure predicate over a view, and, where one helps, the witness
 * that says why it fails. The views are plain data that each tool builds from what it holds:
 * the models from their states (most are the state itself, seen through a narrower type, so
 * the checker's hot loop builds nothing), the simulator's monitor from the servers' views,
 * conform from the observations it merged.
 *
 * Each predicate is a conjunction over terms, indexes, shards or groups. A tool that watches a
 * run evaluates it on the part of the view that an event changed (the body of the
 * conjunction, exported beside it): checking that part after every event checks the whole.
 */
export interface NamedInvariant<View> {
  readonly name: string;
  holds(view: View): boolean;
  /** Why the invariant fails in `view`; called only on a view that violates it. */
  explain?(view: View): string;
}
