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

export function tlaInvariants(raft: RaftShape): Invariant<TlaState>[] {
  const count = raft.bounds.servers;
  const width = raft.width;
  const read = (state: TlaState, server: number, offset: number) =>
    state.servers[server * width + offset]!;
  return [
    {
      // At most one leader per term: every election of a term has the same leader.
      name: 'ElectionSafety',
      holds: (state) => {
        const { elections } = state;
        for (let a = 0; a < elections.length; a++) {
          for (let b = a + 1; b < elections.length; b++) {
            const first = elections[a]![0]!;
            const second = elections[b]![0]!;
            if ((first & 31) === (second & 31) && (first & 0xe0) !== (second & 0xe0)) return false;
          }
        }
        return true;
      },
    },
    {
      // Two logs with an entry of the same index and term agree on every entry up to it.
      name: 'LogMatching',
      holds: (state) => {
        for (let i = 0; i < count; i++) {
          const logI = read(state, i, logOffset);
          for (let j = i + 1; j < count; j++) {
            const logJ = read(state, j, logOffset);
            const shorter = Math.min(logLength(logI), logLength(logJ));
            for (let index = shorter; index >= 1; index--) {
              if (entryTerm(logEntry(logI, index)) !== entryTerm(logEntry(logJ, index))) continue;
              if (prefix(logI, index) !== prefix(logJ, index)) return false;
              break;
            }
          }
        }
        return true;
      },
    },
    {
      // A leader of a term at least a server's holds every entry that server knows committed.
      name: 'LeaderCompleteness',
      holds: (state) => {
        for (let l = 0; l < count; l++) {
          if (read(state, l, roleOffset) !== leader) continue;
          const leaderLog = read(state, l, logOffset);
          const leaderTerm = read(state, l, termOffset);
          for (let i = 0; i < count; i++) {
            const committed = read(state, i, commitIndexOffset);
            if (committed === 0 || read(state, i, termOffset) > leaderTerm) continue;
            const log = read(state, i, logOffset);
            if (logLength(log) < committed || logLength(leaderLog) < committed) return false;
            if (prefix(log, committed) !== prefix(leaderLog, committed)) return false;
          }
        }
        return true;
      },
    },
    {
      // No two servers have committed different entries at one index.
      name: 'StateMachineSafety',
      holds: (state) => {
        for (let i = 0; i < count; i++) {
          for (let j = i + 1; j < count; j++) {
            const both = Math.min(
              read(state, i, commitIndexOffset),
              read(state, j, commitIndexOffset),
            );
            if (both === 0) continue;
            const logI = read(state, i, logOffset);
            const logJ = read(state, j, logOffset);
            if (logLength(logI) < both || logLength(logJ) < both) return false;
            if (prefix(logI, both) !== prefix(logJ, both)) return false;
          }
        }
        return true;
      },
    },
    {
      // A leader only appends: its log still starts with the log it was elected with.
      name: 'LeaderAppendOnly',
      holds: (state) => {
        for (let l = 0; l < count; l++) {
          if (read(state, l, roleOffset) !== leader) continue;
          const term = read(state, l, termOffset);
          const log = read(state, l, logOffset);
          for (const election of state.elections) {
            if ((election[0]! & 31) !== term || ((election[0]! >>> 5) & 7) !== l) continue;
            const elected = election[1]!;
            if (prefix(log, logLength(elected)) !== elected) return false;
          }
        }
        return true;
      },
    },
  ];
}
