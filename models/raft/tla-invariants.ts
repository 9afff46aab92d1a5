/**
 * The Raft invariants over the raft.tla preset's packed state. They read raft.tla's history
 * variables where the property is about history (ElectionSafety over `elections`,
 * LeaderAppendOnly against the log a leader had when it was elected).
 */
import type { Invariant } from '../../checker/model.js';
import {
  commitIndexOffset,
  entryTerm,
  leader,
  logEntry,
  logLength,
  logOffset,
  roleOffset,
  termOffset,
  type TlaState,
} from './tla-state.js';

interface RaftShape {
  readonly bounds: { readonly servers: number };
  readonly width: number;
}

/** The first `length` entries of a packed log. */
function prefix(log: number, length: number): number {
  return length >= 4 ? log : log & ((1 << (8 * length)) - 1);
}

function read(shape: RaftShape, state: TlaState, server: number, offset: number): number {
  return state.servers[server * shape.width + offset]!;
}

/** At most one leader per term: every election of a term has the same leader. */
function electionSafety(state: TlaState): boolean {
  const { elections } = state;
  for (let a = 0; a < elections.length; a++) {
    for (let b = a + 1; b < elections.length; b++) {
      const first = elections[a]![0]!;
      const second = elections[b]![0]!;
      if ((first & 31) === (second & 31) && (first & 0xe0) !== (second & 0xe0)) return false;
    }
  }
  return true;
}

/** Two logs with an entry of the same index and term agree on every entry up to it. */
function logMatching(shape: RaftShape, state: TlaState): boolean {
  const count = shape.bounds.servers;
  for (let i = 0; i < count; i++) {
    const logI = read(shape, state, i, logOffset);
    for (let j = i + 1; j < count; j++) {
      const logJ = read(shape, state, j, logOffset);
      const shorter = Math.min(logLength(logI), logLength(logJ));
      for (let index = shorter; index >= 1; index--) {
        if (entryTerm(logEntry(logI, index)) !== entryTerm(logEntry(logJ, index))) continue;
        if (prefix(logI, index) !== prefix(logJ, index)) return false;
        break;
      }
    }
  }
  return true;
}

/** A leader of a term at least a server's holds every entry that server knows committed. */
function leaderCompleteness(shape: RaftShape, state: TlaState): boolean {
  const count = shape.bounds.servers;
  for (let l = 0; l < count; l++) {
    if (read(shape, state, l, roleOffset) !== leader) continue;
    const leaderLog = read(shape, state, l, logOffset);
    const leaderTerm = read(shape, state, l, termOffset);
    for (let i = 0; i < count; i++) {
      const committed = read(shape, state, i, commitIndexOffset);
      if (committed === 0 || read(shape, state, i, termOffset) > leaderTerm) continue;
      const log = read(shape, state, i, logOffset);
      if (logLength(log) < committed || logLength(leaderLog) < committed) return false;
      if (prefix(log, committed) !== prefix(leaderLog, committed)) return false;
    }
  }
  return true;
}

/** No two servers have committed different entries at one index. */
function stateMachineSafety(shape: RaftShape, state: TlaState): boolean {
  const count = shape.bounds.servers;
  for (let i = 0; i < count; i++) {
    for (let j = i + 1; j < count; j++) {
      const both = Math.min(
        read(shape, state, i, commitIndexOffset),
        read(shape, state, j, commitIndexOffset),
      );
      if (both === 0) continue;
      const logI = read(shape, state, i, logOffset);
      const logJ = read(shape, state, j, logOffset);
      if (logLength(logI) < both || logLength(logJ) < both) return false;
      if (prefix(logI, both) !== prefix(logJ, both)) return false;
    }
  }
  return true;
}

/** A leader only appends: its log still starts with the log it was elected with. */
function leaderAppendOnly(shape: RaftShape, state: TlaState): boolean {
  const count = shape.bounds.servers;
  for (let l = 0; l < count; l++) {
    if (read(shape, state, l, roleOffset) !== leader) continue;
    const term = read(shape, state, l, termOffset);
    const log = read(shape, state, l, logOffset);
    for (const election of state.elections) {
      if ((election[0]! & 31) !== term || ((election[0]! >>> 5) & 7) !== l) continue;
      const elected = election[1]!;
      if (prefix(log, logLength(elected)) !== elected) return false;
    }
  }
  return true;
}

/**
 * The invariant's last verdict, kept while a state holds the same `servers` and `elections`
 * arrays (the only variables the invariants read): a step that only sends, receives without
 * effect, duplicates or drops a message shares both with the state it came from. At TLC's
 * bounds 14.6 million of the 28.2 million successors lie outside the bounds, each of them
 * still checked, and most of them differ from their parent in the bag alone.
 */
function memoised(holds: (state: TlaState) => boolean): (state: TlaState) => boolean {
  let servers: TlaState['servers'] | undefined;
  let elections: TlaState['elections'] | undefined;
  let verdict = true;
  return (state) => {
    if (state.servers !== servers || state.elections !== elections) {
      servers = state.servers;
      elections = state.elections;
      verdict = holds(state);
    }
    return verdict;
  };
}

export function tlaInvariants(shape: RaftShape): Invariant<TlaState>[] {
  const invariants: [string, (state: TlaState) => boolean][] = [
    ['ElectionSafety', electionSafety],
    ['LogMatching', (state) => logMatching(shape, state)],
    ['LeaderCompleteness', (state) => leaderCompleteness(shape, state)],
    ['StateMachineSafety', (state) => stateMachineSafety(shape, state)],
    ['LeaderAppendOnly', (state) => leaderAppendOnly(shape, state)],
  ];
  return invariants.map(([name, holds]) => ({ name, holds: memoised(holds) }));
}
