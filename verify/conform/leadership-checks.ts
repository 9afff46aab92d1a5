/**
 * Check (b) of `shardkv conform`, continued: the shell ran the migration driver exactly as the
 * Raft step's leadership effects say (spec/raft/types.ts Effect). In each incarnation of a
 * node the driver starts only after a raft step said `leaderReady` and no `leadershipLost`
 * came since; it steps (tick, applied, reply, facts) only between that start and its `stop`;
 * and a `leadershipLost` while it runs is followed by its `stop` before the next Raft step
 * (the shell performs the effect after the step's sync, so driver steps may come between).
 */
import type { TraceRecord } from '../../impl/trace/schema.js';
import type { Divergence } from './divergence.js';

interface Leadership {
  inc: number;
  /** A `leaderReady` came and no `leadershipLost` since. */
  ready: boolean;
  /** The driver started and has not stopped. */
  running: boolean;
  /** The seq of a `leadershipLost` step while the driver ran, until its `stop`. */
  lostAt: number | null;
}

function divergence(record: TraceRecord, what: string): Divergence {
  return {
    check: 'shell', what, node: record.node, step: record.seq, actor: record.actor,
    lamport: record.lamport,
  };
}

function effectTypes(record: TraceRecord): string[] {
  return record.effects.map((effect) => (effect as { type?: string }).type ?? '');
}

/** One Raft record: the leadership it reports, or why the shell broke a duty before it. */
function raftRecord(state: Leadership, record: TraceRecord): string | null {
  if (state.lostAt !== null) {
    return `the driver still ran after leadershipLost at step ${state.lostAt}`;
  }
  for (const type of effectTypes(record)) {
    if (type === 'leaderReady') state.ready = true;
    if (type !== 'leadershipLost') continue;
    state.ready = false;
    if (state.running) state.lostAt = record.seq;
  }
  return null;
}

function driverRecord(state: Leadership, record: TraceRecord): string | null {
  const type = (record.input as { type?: string }).type;
  if (type === 'start') {
    if (!state.ready) return 'the driver started without a leaderReady of this leadership';
    if (state.running) return 'the driver started twice';
    state.running = true;
    return null;
  }
  if (type === 'stop') {
    if (state.lostAt === null) return 'the driver stopped without a leadershipLost';
    state.running = false;
    state.lostAt = null;
    return null;
  }
  return state.running ? null : `a driver ${String(type)} step while the driver was stopped`;
}

/** Fed one record at a time; after the first divergence it only counts. */
export class DriverLeadershipChecker {
  divergence: Divergence | null = null;
  private readonly state: Leadership = { inc: 0, ready: false, running: false, lostAt: null };

  next(record: TraceRecord): void {
    if (this.divergence !== null) return;
    const state = this.state;
    if (record.inc !== state.inc) {
      // A new process: nothing runs (a crash ends the old one's driver without a record).
      Object.assign(state, { inc: record.inc, ready: false, running: false, lostAt: null });
    }
    const problem = record.actor === 'raft' ? raftRecord(state, record)
      : record.actor === 'driver' ? driverRecord(state, record) : null;
    if (problem !== null) this.divergence = divergence(record, problem);
  }
}

export function checkDriverLeadership(records: readonly TraceRecord[]): Divergence | null {
  const checker = new DriverLeadershipChecker();
  for (const record of records) checker.next(record);
  return checker.divergence;
}
