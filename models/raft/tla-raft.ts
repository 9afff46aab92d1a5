/**
 * The raft.tla preset's context (tla-preset.ts): its bounds, the width of a server's packed
 * words (tla-state.ts), the quorum, the initial state, TLC's state constraint, and how every
 * action builds its successor. The actions themselves are tla-server-actions.ts (what a
 * server does by itself), tla-receive.ts (Receive(m)) and tla-network.ts (the bag's faults).
 */
import { assert } from '../../spec/assert.js';
import {
  absent,
  follower,
  logLength,
  logOffset,
  maximumLogLength,
  maximumServers,
  maximumTerm,
  maximumValues,
  nextIndexOffset,
  nil,
  roleOffset,
  stride,
  termOffset,
  totalCopies,
  votedForOffset,
  voterLogOffset,
  type TlaState,
} from './tla-state.js';

export interface TlaBounds {
  readonly servers: number;
  readonly values: number;
  readonly maxTerm: number;
  readonly maxLog: number;
  readonly maxMsgs: number;
}

export class TlaRaft {
  readonly width: number;
  readonly quorumSize: number;
  /**
   * allLogs' = allLogs \cup {log[i] : i \in Server} is the same for every successor of a state:
   * `next` sets it once per expanded state, and each step's successor takes it.
   */
  allLogsNext: readonly number[] = [];

  constructor(readonly bounds: TlaBounds) {
    const { servers, values, maxTerm, maxLog } = bounds;
    assert(
      servers >= 1 && servers <= maximumServers,
      `raft.tla preset: 1..${maximumServers} servers`,
    );
    assert(values >= 1 && values <= maximumValues, `raft.tla preset: 1..${maximumValues} values`);
    assert(maxTerm >= 1 && maxTerm <= maximumTerm, `raft.tla preset: max term 1..${maximumTerm}`);
    assert(
      maxLog >= 0 && maxLog <= maximumLogLength,
      `raft.tla preset: max log 0..${maximumLogLength}`,
    );
    this.width = stride(servers);
    this.quorumSize = Math.floor(servers / 2) + 1;
  }

  /**
   * The successor of a step from `state`: its variables, and the allLogs shared by every
   * successor; `state` itself when nothing changes (a stuttering Restart, an
   * AdvanceCommitIndex with nothing to commit), which the checker then knows without
   * encoding it.
   */
  successor(
    state: TlaState,
    servers: readonly number[],
    messages: readonly number[],
    elections: readonly Int32Array[],
  ): TlaState {
    const allLogs = this.allLogsNext;
    if (servers === state.servers && messages === state.messages &&
      elections === state.elections && allLogs === state.allLogs) return state;
    return { servers, messages, elections, allLogs };
  }

  initialState(): TlaState {
    const { servers } = this.bounds;
    // Pushed, not Array(n).fill(0): a holey array would make every read of `servers`
    // polymorphic, as decoded states are packed.
    const words: number[] = [];
    for (let index = 0; index < servers * this.width; index++) words.push(0);
    for (let i = 0; i < servers; i++) {
      const base = i * this.width;
      words[base + termOffset] = 1;
      words[base + roleOffset] = follower;
      words[base + votedForOffset] = nil;
      for (let j = 0; j < servers; j++) {
        words[base + nextIndexOffset + j] = 1;
        words[base + voterLogOffset(servers) + j] = absent;
      }
    }
    return {
      servers: words,
      messages: [],
      elections: [],
      allLogs: [],
    };
  }

  /** Server i's word at `offset`. */
  field(state: { servers: readonly number[] }, i: number, offset: number): number {
    return state.servers[i * this.width + offset]!;
  }

  /** TLC's state constraint: terms and logs within bounds, and the bag's copies. */
  withinBounds(state: TlaState): boolean {
    const { servers: count, maxTerm, maxLog, maxMsgs } = this.bounds;
    for (let i = 0; i < count; i++) {
      const base = i * this.width;
      if (state.servers[base + termOffset]! > maxTerm) return false;
      if (logLength(state.servers[base + logOffset]!) > maxLog) return false;
    }
    return totalCopies(state.messages) <= maxMsgs;
  }
}
