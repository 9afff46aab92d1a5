/**
 * The figures of a refinement check (`check raft --refines raft.tla` prints them after the
 * search): every transition from the states within the bounds, and how it maps onto raft.tla
 * (a stutter, a sequence of k actions, through which documented deviation). The checker's
 * search keeps no per-transition tally (it may run in worker threads), so this is a second
 * breadth-first pass over the same states and transitions, deduplicated by the same view.
 */
import { WordWriter } from '../../checker/words.js';
import type { Model } from '../../checker/model.js';
import type { RaftModelState } from './model-state.js';
import type { RaftAction } from './model.js';
import { mapStep, type Deviation, type StepMapping } from './refinement.js';
import type { TlaRaft } from './tla-raft.js';

export interface RefinementFigures {
  readonly states: number;
  readonly transitions: number;
  readonly stutters: number;
  /** bySteps[k]: transitions that map onto k raft.tla actions (k >= 1). */
  readonly bySteps: Readonly<Record<number, number>>;
  readonly deviations: Readonly<Partial<Record<Deviation, number>>>;
  readonly unmapped: number;
}

/** Calls `visit` with every transition's mapping, in BFS order; returns the states explored. */
export function forEachMapping(
  raft: Model<RaftModelState, RaftAction>, tla: TlaRaft,
  visit: (mapping: StepMapping | null) => void,
): number {
  const key = (state: RaftModelState) => {
    const out = new WordWriter();
    if (raft.writeView) raft.writeView(state, out);
    else raft.codec.encode(state, out);
    return out.words.subarray(0, out.length).join(',');
  };
  const queue = [...raft.initialStates()];
  const seen = new Set(queue.map(key));
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    for (const action of raft.actions(state)) {
      const next = raft.next(state, action);
      if (next === null) continue;
      visit(mapStep(tla, state, action, next));
      if (!(raft.withinBounds?.(next) ?? true)) continue;
      const nextKey = key(next);
      if (seen.has(nextKey)) continue;
      seen.add(nextKey);
      queue.push(next);
    }
  }
  return queue.length;
}

export function refinementFigures(
  raft: Model<RaftModelState, RaftAction>, tla: TlaRaft,
): RefinementFigures {
  let transitions = 0;
  let stutters = 0;
  let unmapped = 0;
  const bySteps: Record<number, number> = {};
  const deviations: Partial<Record<Deviation, number>> = {};
  const states = forEachMapping(raft, tla, (mapping) => {
    transitions++;
    if (mapping === null) unmapped++;
    else if (mapping.tlaSteps === 0) stutters++;
    else bySteps[mapping.tlaSteps] = (bySteps[mapping.tlaSteps] ?? 0) + 1;
    if (mapping?.deviation) deviations[mapping.deviation] = (deviations[mapping.deviation] ?? 0) + 1;
  });
  return { states, transitions, stutters, bySteps, deviations, unmapped };
}

const numberWords = ['none', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];

/** One paragraph, as the README quotes the figures. */
export function formatRefinementFigures(figures: RefinementFigures): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const steps = Object.entries(figures.bySteps).map(([k, n]) =>
    `${count(n)} onto ${numberWords[Number(k)] ?? k} raft.tla action${k === '1' ? '' : 's'}`);
  const deviations = Object.entries(figures.deviations).map(([name, n]) =>
    `${count(n!)} through ${name}`);
  const verdict = figures.unmapped === 0
    ? 'every one maps' : `${count(figures.unmapped)} map onto nothing`;
  return `Refinement: ${count(figures.states)} states, ${count(figures.transitions)} ` +
    `transitions checked, ${verdict}: ${[...steps, `${count(figures.stutters)} stutters`,
      ...deviations].join(', ')}`;
}
