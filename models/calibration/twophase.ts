/**
 * Lamport's TwoPhase.tla (the two-phase commit protocol with a transaction manager), action
 * for action: TMRcvPrepared(rm), TMCommit, TMAbort, RMPrepare(rm), RMChooseToAbort(rm),
 * RMRcvCommitMsg(rm), RMRcvAbortMsg(rm). Messages are a set, never removed. The reachable
 * space is the calibration figure TLC, Stateright and SPIN agree on: 288 states for 3 RMs,
 * 1568 for 4, 8832 for 5, 296448 for 7, 1745408 for 8.
 */
import { defineModel, integer, type ModelSpec } from '../../checker/define-model.js';
import type { Model } from '../../checker/model.js';
import type { WordReader, WordWriter } from '../../checker/words.js';
import { twoPhaseSuccessorWords } from './twophase-words.js';

export type ResourceManagerState = 'working' | 'prepared' | 'committed' | 'aborted';
export type TransactionManagerState = 'init' | 'committed' | 'aborted';

export interface TwoPhaseState {
  readonly rmState: readonly ResourceManagerState[];
  readonly tmState: TransactionManagerState;
  /** tmPrepared as a membership vector over resource managers. */
  readonly tmPrepared: readonly boolean[];
  /** The message set: which [type |-> "Prepared", rm |-> rm] are in it, and the two others. */
  readonly preparedMsgs: readonly boolean[];
  readonly commitMsg: boolean;
  readonly abortMsg: boolean;
}

export type TwoPhaseAction =
  | { readonly type: 'TMCommit' }
  | { readonly type: 'TMAbort' }
  | { readonly type: 'TMRcvPrepared'; readonly rm: number }
  | { readonly type: 'RMPrepare'; readonly rm: number }
  | { readonly type: 'RMChooseToAbort'; readonly rm: number }
  | { readonly type: 'RMRcvCommitMsg'; readonly rm: number }
  | { readonly type: 'RMRcvAbortMsg'; readonly rm: number };

export const maximumResourceManagers = 15;

export function initialState(resourceManagers: number): TwoPhaseState {
  return {
    rmState: Array<ResourceManagerState>(resourceManagers).fill('working'),
    tmState: 'init',
    tmPrepared: Array<boolean>(resourceManagers).fill(false),
    preparedMsgs: Array<boolean>(resourceManagers).fill(false),
    commitMsg: false,
    abortMsg: false,
  };
}

function withRmState(state: TwoPhaseState, rm: number, value: ResourceManagerState) {
  const rmState = state.rmState.slice();
  rmState[rm] = value;
  return rmState;
}

/** TwoPhase.tla's TPNext, one disjunct per action; null when the action is not enabled. */
export function step(state: TwoPhaseState, action: TwoPhaseAction): TwoPhaseState | null {
  switch (action.type) {
    case 'TMRcvPrepared': {
      if (state.tmState !== 'init' || !state.preparedMsgs[action.rm]) return null;
      if (state.tmPrepared[action.rm]) return state;
      const tmPrepared = state.tmPrepared.slice();
      tmPrepared[action.rm] = true;
      return { ...state, tmPrepared };
    }
    case 'TMCommit':
      if (state.tmState !== 'init' || !state.tmPrepared.every(Boolean)) return null;
      return { ...state, tmState: 'committed', commitMsg: true };
    case 'TMAbort':
      if (state.tmState !== 'init') return null;
      return { ...state, tmState: 'aborted', abortMsg: true };
    case 'RMPrepare': {
      if (state.rmState[action.rm] !== 'working') return null;
      const preparedMsgs = state.preparedMsgs.slice();
      preparedMsgs[action.rm] = true;
      return { ...state, rmState: withRmState(state, action.rm, 'prepared'), preparedMsgs };
    }
    case 'RMChooseToAbort':
      if (state.rmState[action.rm] !== 'working') return null;
      return { ...state, rmState: withRmState(state, action.rm, 'aborted') };
    case 'RMRcvCommitMsg':
      if (!state.commitMsg) return null;
      return { ...state, rmState: withRmState(state, action.rm, 'committed') };
    case 'RMRcvAbortMsg':
      if (!state.abortMsg) return null;
      return { ...state, rmState: withRmState(state, action.rm, 'aborted') };
  }
}

function allActions(resourceManagers: number): TwoPhaseAction[] {
  const actions: TwoPhaseAction[] = [{ type: 'TMCommit' }, { type: 'TMAbort' }];
  const perRm = [
    'TMRcvPrepared',
    'RMPrepare',
    'RMChooseToAbort',
    'RMRcvCommitMsg',
    'RMRcvAbortMsg',
  ] as const;
  for (let rm = 0; rm < resourceManagers; rm++) {
    for (const type of perRm) actions.push({ type, rm });
  }
  return actions;
}

const rmStates: readonly ResourceManagerState[] = ['working', 'prepared', 'committed', 'aborted'];
const tmStates: readonly TransactionManagerState[] = ['init', 'committed', 'aborted'];

// Switches on interned strings compare pointers: faster than a keyed lookup in the hot loop.
function rmStateCode(value: ResourceManagerState): number {
  switch (value) {
    case 'working':
      return 0;
    case 'prepared':
      return 1;
    case 'committed':
      return 2;
    case 'aborted':
      return 3;
  }
}

function tmStateCode(value: TransactionManagerState): number {
  switch (value) {
    case 'init':
      return 0;
    case 'committed':
      return 1;
    case 'aborted':
      return 2;
  }
}

/** Four bits per resource manager (state, tmPrepared, Prepared message), eight per word. */
function encode(state: TwoPhaseState, out: WordWriter): void {
  out.push(tmStateCode(state.tmState) | (state.commitMsg ? 4 : 0) | (state.abortMsg ? 8 : 0));
  let word = 0;
  const count = state.rmState.length;
  for (let rm = 0; rm < count; rm++) {
    const bits =
      rmStateCode(state.rmState[rm]!) |
      (state.tmPrepared[rm] ? 4 : 0) |
      (state.preparedMsgs[rm] ? 8 : 0);
    word |= bits << ((rm & 7) * 4);
    if ((rm & 7) === 7 || rm === count - 1) {
      out.push(word);
      word = 0;
    }
  }
}

function decoder(resourceManagers: number) {
  return (input: WordReader): TwoPhaseState => {
    const head = input.next();
    const rmState: ResourceManagerState[] = [];
    const tmPrepared: boolean[] = [];
    const preparedMsgs: boolean[] = [];
    let word = 0;
    for (let rm = 0; rm < resourceManagers; rm++) {
      if ((rm & 7) === 0) word = input.next();
      const bits = (word >>> ((rm & 7) * 4)) & 15;
      rmState.push(rmStates[bits & 3]!);
      tmPrepared.push((bits & 4) !== 0);
      preparedMsgs.push((bits & 8) !== 0);
    }
    return {
      rmState,
      tmState: tmStates[head & 3]!,
      tmPrepared,
      preparedMsgs,
      commitMsg: (head & 4) !== 0,
      abortMsg: (head & 8) !== 0,
    };
  };
}

const rmName = (rm: number) => `r${rm + 1}`;

/** The state as TwoPhase.tla's variables, for traces (sets as Sets, functions as Maps). */
function variables(state: TwoPhaseState): Record<string, unknown> {
  const msgs = new Set<unknown>();
  state.preparedMsgs.forEach((sent, rm) => {
    if (sent) msgs.add({ type: 'Prepared', rm: rmName(rm) });
  });
  if (state.commitMsg) msgs.add({ type: 'Commit' });
  if (state.abortMsg) msgs.add({ type: 'Abort' });
  return {
    rmState: new Map(state.rmState.map((value, rm) => [rmName(rm), value])),
    tmState: state.tmState,
    tmPrepared: new Set(state.tmPrepared.flatMap((prepared, rm) => (prepared ? [rmName(rm)] : []))),
    msgs,
  };
}

const decided = (value: ResourceManagerState) => value === 'committed' || value === 'aborted';

function twoPhaseSpec(resourceManagers: number): ModelSpec<TwoPhaseState, TwoPhaseAction> {
  const actions = allActions(resourceManagers);
  return {
    initialStates: () => [initialState(resourceManagers)],
    actions: () => actions,
    next: step,
    label: (action) => ('rm' in action ? `${action.type}(${rmName(action.rm)})` : action.type),
    // Both outcomes happen: a model that could only abort would pass TCConsistent vacuously.
    sometimes: {
      SomeCommitted: (state) => state.rmState.includes('committed'),
      SomeAborted: (state) => state.rmState.includes('aborted'),
    },
    invariants: [
      {
        name: 'TypeOK',
        holds: (state) =>
          state.rmState.length === resourceManagers &&
          state.rmState.every((value) => rmStates.includes(value)) &&
          tmStates.includes(state.tmState),
      },
      {
        // No resource manager has aborted while another has committed.
        name: 'TCConsistent',
        holds: (state) =>
          !(state.rmState.includes('aborted') && state.rmState.includes('committed')),
      },
    ],
    // Not in TwoPhase.tla, whose TPSpec has no fairness: with every action of the TM and of
    // each RM weakly fair (one class per RM: "RMPrepare(r1)"), the protocol terminates.
    properties: [
      {
        name: 'EveryRmDecides',
        kind: 'eventually',
        holds: (state) => state.rmState.every(decided),
      },
      {
        name: 'CommitLeadsToAllCommitted',
        kind: 'leadsTo',
        trigger: (state) => state.tmState === 'committed',
        holds: (state) => state.rmState.every((value) => value === 'committed'),
      },
    ],
    fairness: { weakLabelPrefixes: ['TM', 'RM'] },
    codec: { encode, decode: decoder(resourceManagers) },
    successorWords: twoPhaseSuccessorWords(resourceManagers),
    variables,
  };
}

export const twoPhaseDefinition = defineModel({
  name: 'twophase',
  description: "Lamport's TwoPhase.tla (calibration: 288 states for 3 RMs ... 1745408 for 8)",
  params: {
    rms: integer({
      description: 'resource managers',
      default: 3,
      min: 1,
      max: maximumResourceManagers,
    }),
  },
  create: ({ rms }) => twoPhaseSpec(rms),
});

export function createTwoPhaseModel(
  resourceManagers: number,
): Model<TwoPhaseState, TwoPhaseAction> {
  return twoPhaseDefinition.build({ rms: resourceManagers });
}
