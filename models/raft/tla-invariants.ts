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

/** The verdict cache holds 2^cacheBits entries, far more than the field tuples a level sees. */
const cacheBits = 12;
/**
 * Servers whose (term, role, commitIndex) share one key word: 10 bits each, as term <= 21
 * (maximumTerm and one Timeout past it), role <= 2 and commitIndex <= 4.
 */
const serversPerKeyWord = 3;

/**
 * Verdicts by content: the four server fields the invariants read (term, role, log and
 * commitIndex; ten bits and a log word a server) under one `elections` array, in a
 * direct-mapped table. The successors outside the bounds (a Timeout past MaxTerm, a
 * ClientRequest past MaxLogLen) change a server and so share no array with a judged state,
 * but a few thousand field tuples recur across millions of states.
 */
class VerdictCache {
  private readonly keyWords: number;
  private readonly entryWords: number;
  private readonly table: Int32Array;
  private readonly key: Int32Array;
  private elections: TlaState['elections'] | undefined;
  /** Bumped when the elections change: older entries no longer match (0 marks empty). */
  private generation = 0;
  /** The entry the last `find` looked at. */
  private entryAt = 0;

  constructor(private readonly count: number) {
    this.keyWords = Math.ceil(count / serversPerKeyWord) + count;
    this.entryWords = this.keyWords + 2;
    this.table = new Int32Array((1 << cacheBits) * this.entryWords);
    this.key = new Int32Array(this.keyWords);
  }

  /** The cached verdict for `fields` under `elections`, or -1 after writing the key. */
  find(fields: ServerFields, elections: TlaState['elections']): number {
    if (elections !== this.elections) {
      this.elections = elections;
      this.generation++;
    }
    const key = this.key;
    key.fill(0);
    let hash = this.generation;
    for (let i = 0; i < this.count; i++) {
      const small = fields.term[i]! | (fields.role[i]! << 5) | (fields.commitIndex[i]! << 7);
      key[Math.floor(i / serversPerKeyWord)]! |= small << (10 * (i % serversPerKeyWord));
      key[this.keyWords - this.count + i] = fields.log[i]!;
    }
    for (let word = 0; word < this.keyWords; word++) {
      hash = Math.imul(hash ^ key[word]!, 0x9e3779b1);
    }
    const at = (hash >>> (32 - cacheBits)) * this.entryWords;
    this.entryAt = at;
    const table = this.table;
    if (table[at] !== this.generation) return -1;
    for (let word = 0; word < this.keyWords; word++) {
      if (table[at + 2 + word] !== key[word]) return -1;
    }
    return table[at + 1]!;
  }

  /** Stores the verdict for the key the last `find` missed. */
  store(bits: number): void {
    const at = this.entryAt;
    this.table[at] = this.generation;
    this.table[at + 1] = bits;
    this.table.set(this.key, at + 2);
  }
}

/** A verdict of `violations` for one (servers, elections) pair of arrays; -1: not judged yet. */
class Verdict {
  servers: TlaState['servers'] | undefined;
  elections: TlaState['elections'] | undefined;
  bits = -1;

  matches(state: TlaState): boolean {
    return state.servers === this.servers && state.elections === this.elections;
  }

  set(state: TlaState, bits: number): void {
    this.servers = state.servers;
    this.elections = state.elections;
    this.bits = bits;
  }
}

/**
 * The five invariants, judged together once per state and kept while a state holds the same
 * `servers` and `elections` arrays (the only variables they read): a step that only sends,
 * receives without effect, duplicates or drops a message shares both with the state it came
 * from. At TLC's bounds 14.6 million of the 28.2 million successors lie outside the bounds,
 * each of them still checked, and most of them differ from their parent in the bag alone.
 * Two verdicts are kept by array, the state being expanded's (`expanding`, judged when a
 * successor first shares its arrays) and the last other state's, and the rest by content
 * (VerdictCache): with the last one alone, 11.7 of the 17.0 million checks were judged
 * again; with the parent's too, 10.5; with the cache, 1.2. Judged one by one, each behind
 * its own memo, they took a quarter of the preset's time.
 */
export function tlaInvariants(shape: RaftShape): {
  invariants: Invariant<TlaState>[];
  invariantsHold: (state: TlaState) => boolean;
  expanding: (state: TlaState) => void;
} {
  const fields = new ServerFields(shape.bounds.servers);
  const parent = new Verdict();
  const last = new Verdict();
  const cache = new VerdictCache(shape.bounds.servers);
  const judge = (state: TlaState): number => {
    fields.load(shape.width, state.servers);
    const cached = cache.find(fields, state.elections);
    if (cached >= 0) return cached;
    const bits = violations(fields, state.elections);
    cache.store(bits);
    return bits;
  };
  const violationsOf = (state: TlaState): number => {
    if (parent.matches(state)) {
      if (parent.bits < 0) parent.bits = judge(state);
      return parent.bits;
    }
    if (!last.matches(state)) last.set(state, judge(state));
    return last.bits;
  };
  return {
    invariants: invariantNames.map((name, index) => ({
      name,
      holds: (state: TlaState) => (violationsOf(state) & (1 << index)) === 0,
    })),
    invariantsHold: (state) => violationsOf(state) === 0,
    expanding: (state) => parent.set(state, -1),
  };
}
