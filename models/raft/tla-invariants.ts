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

/**
 * The four server variables the invariants read (currentTerm, state, log, commitIndex),
 * copied out of the packed words once per checked state, so that the five checks read
 * them from four short arrays instead of each computing offsets into `servers`.
 */
class ServerFields {
  readonly term: Int32Array;
  readonly role: Int32Array;
  readonly log: Int32Array;
  readonly commitIndex: Int32Array;

  constructor(readonly count: number) {
    this.term = new Int32Array(count);
    this.role = new Int32Array(count);
    this.log = new Int32Array(count);
    this.commitIndex = new Int32Array(count);
  }

  load(width: number, servers: readonly number[]): void {
    for (let i = 0; i < this.count; i++) {
      const base = i * width;
      this.term[i] = servers[base + termOffset]!;
      this.role[i] = servers[base + roleOffset]!;
      this.log[i] = servers[base + logOffset]!;
      this.commitIndex[i] = servers[base + commitIndexOffset]!;
    }
  }
}

/** At most one leader per term: every election of a term has the same leader. */
function electionSafety(elections: TlaState['elections']): boolean {
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
function logMatching({ count, log }: ServerFields): boolean {
  for (let i = 0; i < count; i++) {
    const logI = log[i]!;
    for (let j = i + 1; j < count; j++) {
      const logJ = log[j]!;
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
function leaderCompleteness({ count, term, role, log, commitIndex }: ServerFields): boolean {
  for (let l = 0; l < count; l++) {
    if (role[l] !== leader) continue;
    const leaderLog = log[l]!;
    const leaderTerm = term[l]!;
    for (let i = 0; i < count; i++) {
      const committed = commitIndex[i]!;
      if (committed === 0 || term[i]! > leaderTerm) continue;
      if (logLength(log[i]!) < committed || logLength(leaderLog) < committed) return false;
      if (prefix(log[i]!, committed) !== prefix(leaderLog, committed)) return false;
    }
  }
  return true;
}

/** No two servers have committed different entries at one index. */
function stateMachineSafety({ count, log, commitIndex }: ServerFields): boolean {
  for (let i = 0; i < count; i++) {
    for (let j = i + 1; j < count; j++) {
      const both = Math.min(commitIndex[i]!, commitIndex[j]!);
      if (both === 0) continue;
      const logI = log[i]!;
      const logJ = log[j]!;
      if (logLength(logI) < both || logLength(logJ) < both) return false;
      if (prefix(logI, both) !== prefix(logJ, both)) return false;
    }
  }
  return true;
}

/** A leader only appends: its log still starts with the log it was elected with. */
function leaderAppendOnly(
  { count, term, role, log }: ServerFields,
  elections: TlaState['elections'],
): boolean {
  for (let l = 0; l < count; l++) {
    if (role[l] !== leader) continue;
    for (let at = 0; at < elections.length; at++) {
      const election = elections[at]!;
      if ((election[0]! & 31) !== term[l] || ((election[0]! >>> 5) & 7) !== l) continue;
      const elected = election[1]!;
      if (prefix(log[l]!, logLength(elected)) !== elected) return false;
    }
  }
  return true;
}

const invariantNames = [
  'ElectionSafety',
  'LogMatching',
  'LeaderCompleteness',
  'StateMachineSafety',
  'LeaderAppendOnly',
] as const;

/** Bit k set: the state violates invariant k of `invariantNames`. */
function violations(fields: ServerFields, elections: TlaState['elections']): number {
  return (
    (electionSafety(elections) ? 0 : 1) |
    (logMatching(fields) ? 0 : 2) |
    (leaderCompleteness(fields) ? 0 : 4) |
    (stateMachineSafety(fields) ? 0 : 8) |
    (leaderAppendOnly(fields, elections) ? 0 : 16)
  );
}

/**
 * The five invariants, judged together once per state and kept while a state holds the same
 * `servers` and `elections` arrays (the only variables they read): a step that only sends,
 * receives without effect, duplicates or drops a message shares both with the state it came
 * from. At TLC's bounds 14.6 million of the 28.2 million successors lie outside the bounds,
 * each of them still checked, and most of them differ from their parent in the bag alone.
 * Judged one by one, each behind its own memo, they took a quarter of the preset's time.
 */
export function tlaInvariants(shape: RaftShape): {
  invariants: Invariant<TlaState>[];
  invariantsHold: (state: TlaState) => boolean;
} {
  const fields = new ServerFields(shape.bounds.servers);
  let servers: TlaState['servers'] | undefined;
  let elections: TlaState['elections'] | undefined;
  let verdict = 0;
  const violationsOf = (state: TlaState): number => {
    if (state.servers !== servers || state.elections !== elections) {
      servers = state.servers;
      elections = state.elections;
      fields.load(shape.width, servers);
      verdict = violations(fields, elections);
    }
    return verdict;
  };
  return {
    invariants: invariantNames.map((name, index) => ({
      name,
      holds: (state: TlaState) => (violationsOf(state) & (1 << index)) === 0,
    })),
    invariantsHold: (state) => violationsOf(state) === 0,
  };
}
