/**
 * What the explorer shows of one model, computed through the model API only: a path (an
 * initial state's index, then action indexes, as checker paths are) is re-executed from the
 * start, and the view of its last state lists its variables, the invariants that hold or
 * fail there (with the model's witness), and every enabled action with the fields its next
 * state changes. `shortestViolation` runs the checker's BFS and returns the path it finds.
 */
import { breadthFirstSearch } from '../../checker/bfs.js';
import { diagramSteps, renderMermaid } from '../../checker/diagram.js';
import { itfToText } from '../../checker/itf.js';
import { differences, formatDifference } from '../../checker/itf-diff.js';
import type { AnyModel } from '../../checker/model.js';
import type { Path } from '../../checker/search.js';
import { renderSvg } from '../../checker/trace-html.js';
import { stateVariables } from '../../checker/trace.js';

/** A path the page cannot follow: the reason, shown instead of a state. */
export class PathError extends Error {
  override name = 'PathError';
}

export interface InvariantView {
  readonly name: string;
  readonly holds: boolean;
  readonly witness?: string;
}

export interface ActionView {
  /** The index into `actions(state)`: what the path records. */
  readonly index: number;
  readonly label: string;
  /** The next state's changes, `field: old -> new`. */
  readonly changes: readonly string[];
  /** Invariants the next state violates. */
  readonly violates: readonly string[];
  /** False when the checker would not explore the next state (outside the constraint). */
  readonly withinBounds: boolean;
}

export interface StateView {
  readonly model: string;
  readonly initialStates: number;
  readonly path: Path;
  /** The labels of the path's steps, in order. */
  readonly steps: readonly string[];
  readonly variables: readonly { readonly name: string; readonly value: string }[];
  readonly invariants: readonly InvariantView[];
  readonly actions: readonly ActionView[];
  /** No action enabled and not declared terminal. */
  readonly deadlock: boolean;
  readonly mermaid: string;
  readonly svg: string;
}

export type SearchView =
  | { readonly result: 'violation'; readonly invariant: string; readonly path: Path }
  | { readonly result: 'ok' | 'incomplete'; readonly distinctStates: number };

/** `0` or `0.3.1`: the initial index, then action indexes. */
export function parsePath(text: string): Path {
  if (!/^\d+(\.\d+)*$/.test(text)) throw new PathError(`not a path: '${text}'`);
  const [initialIndex, ...actionIndexes] = text.split('.').map(Number);
  return { initialIndex: initialIndex!, actionIndexes };
}

export function formatPath(path: Path): string {
  return [path.initialIndex, ...path.actionIndexes].join('.');
}

export class ExploreSession {
  constructor(
    readonly model: AnyModel,
    private readonly searchTimeLimitSeconds: number,
  ) {}

  view(path: Path): StateView {
    const { states, actions } = this.follow(path);
    const state = states.at(-1);
    const variables = stateVariables(this.model, state);
    const enabled = this.enabledActions(state, variables);
    return {
      model: this.model.name,
      initialStates: this.model.initialStates().length,
      path,
      steps: actions.map((action) => this.model.label(action)),
      variables: Object.entries(variables).map(([name, value]) => ({
        name, value: itfToText(value),
      })),
      invariants: this.model.invariants.map((invariant) => {
        const holds = invariant.holds(state);
        const witness = holds ? undefined : invariant.explain?.(state);
        return { name: invariant.name, holds, ...(witness ? { witness } : {}) };
      }),
      actions: enabled,
      deadlock: enabled.length === 0 && !(this.model.isTerminal?.(state) ?? false),
      ...this.diagram(states, actions),
    };
  }

  /** The checker's BFS from the initial states: the shortest violation, if any. */
  shortestViolation(): SearchView {
    const result = breadthFirstSearch(this.model, {
      timeLimitSeconds: this.searchTimeLimitSeconds, deadlock: true,
    });
    if (result.result === 'violation') {
      return { result: 'violation', invariant: result.invariant!, path: result.path! };
    }
    return { result: result.result, distinctStates: result.distinctStates };
  }

  private follow(path: Path): { states: unknown[]; actions: unknown[] } {
    const initial = this.model.initialStates()[path.initialIndex];
    if (initial === undefined) {
      throw new PathError(`no initial state ${path.initialIndex} ` +
        `(the model has ${this.model.initialStates().length})`);
    }
    const states: unknown[] = [initial];
    const actions: unknown[] = [];
    for (const [step, index] of path.actionIndexes.entries()) {
      const state = states.at(-1);
      const action = this.model.actions(state)[index];
      const next = action === undefined ? null : this.model.next(state, action);
      if (action === undefined || next === null) {
        throw new PathError(`step ${step + 1}: action ${index} is not enabled there`);
      }
      actions.push(action);
      states.push(next);
    }
    return { states, actions };
  }

  private enabledActions(state: unknown, before: ReturnType<typeof stateVariables>) {
    const views: ActionView[] = [];
    for (const [index, action] of this.model.actions(state).entries()) {
      const next = this.model.next(state, action);
      if (next === null) continue;
      const after = stateVariables(this.model, next);
      views.push({
        index,
        label: this.model.label(action),
        changes: differences(before, after).map(formatDifference),
        violates: this.model.invariants.filter((invariant) => !invariant.holds(next))
          .map((invariant) => invariant.name),
        withinBounds: this.model.withinBounds?.(next) ?? true,
      });
    }
    return views;
  }

  private diagram(states: readonly unknown[], actions: readonly unknown[]) {
    const steps = diagramSteps(this.model, states, actions);
    return { mermaid: renderMermaid(steps), svg: steps.length === 0 ? '' : renderSvg(steps) };
  }
}
