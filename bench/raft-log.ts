/**
 * `npm run bench -- raft-log`: what one proposal and one follower append cost the spec's Raft
 * (spec/raft step, the runtime's options) against the length of the log (issue 21 item 4):
 * CPU microseconds per leader round (propose one command, the storage's durable report, a
 * heartbeat that sends it, the follower's acknowledgement that commits it) and per follower
 * append (one AppendEntries of one entry at the end of its log, committing the one before),
 * at logs of 1,000, 10,000 and 100,000 entries restarted from storage: the best of three
 * runs of at least 100 rounds and 0.2 s of CPU each (the machine is shared). A log copied per
 * batch costs O(length); the bar is the 100,000-entry figure at most 2x the 1,000-entry one.
 */
import { loadavg } from 'node:os';
import { defaultTuning, raftOptionsOf } from '../impl/node/tuning.js';
import { initialNode, lastLogIndex, step } from '../spec/raft/index.js';
import type { Entry, Input, RaftNode, RaftOptions } from '../spec/raft/types.js';
import type { BenchSection } from './sections.js';

type Command = { readonly op: 'put'; readonly key: string; readonly value: string };
type Node = RaftNode<Command, never>;

const options: RaftOptions = raftOptionsOf(defaultTuning);
const lengths = [1_000, 10_000, 100_000];
const roundsMin = 100;
const cpuMicrosMin = 200_000;
const runs = 3;
const value = 'x'.repeat(64);
const command = (seq: number): Command => ({ op: 'put', key: `key-${seq}`, value });

function run1(node: Node, input: Input<Command, never>): Node {
  return step(node, input, options).node;
}

/** Server `id` of three restarted from `length` committed entries of term 1. */
function restarted(id: number, length: number): Node {
  const entries: Entry<Command>[] = Array.from({ length }, (_, seq) =>
    ({ term: 1, command: command(seq) }));
  const hardState = { currentTerm: 1, votedFor: null, commitIndex: length };
  const persisted = { hardState, snapshot: null, entries };
  return run1(initialNode(id, 3), { type: 'restart', persisted });
}

/** Server 0 leading term 2 over `length` entries, server 1 replicating (acknowledged). */
function leaderOver(length: number): Node {
  let node = run1(restarted(0, length), { type: 'electionTimeout' });
  node = run1(node, { type: 'message', from: 1,
    message: { type: 'PreVoteResponse', term: 2, voteGranted: true } });
  node = run1(node, { type: 'message', from: 1,
    message: { type: 'RequestVoteResponse', term: 2, voteGranted: true } });
  if (node.role !== 'leader') throw new Error(`bench: no leader (${node.role})`);
  return leaderRound(node, null);
}

/**
 * One leader round: propose (none: only replicate what waits), report durable, send to
 * server 1, take its acknowledgement.
 */
function leaderRound(leader: Node, proposal: Command | null): Node {
  let node = proposal === null ? leader : run1(leader, { type: 'propose', commands: [proposal] });
  const last = lastLogIndex(node);
  node = run1(node, { type: 'logDurable', index: last, term: 2 });
  node = run1(node, { type: 'heartbeat', peer: 1 });
  node = run1(node, { type: 'message', from: 1, message: {
    type: 'AppendEntriesResponse', term: 2, success: true, matchIndex: last,
    conflictTerm: 0, conflictIndex: 0, readSequence: 0,
  } });
  if (node.commitIndex !== last) throw new Error(`bench: ${last} did not commit`);
  return node;
}

/** The follower's log after one AppendEntries of one entry at its end from leader 0. */
function followerAppend(follower: Node, seq: number): Node {
  const last = lastLogIndex(follower);
  const message = {
    type: 'AppendEntriesRequest', term: 1, prevLogIndex: last, prevLogTerm: 1,
    entries: [{ term: 1, command: command(seq) }], leaderCommit: last, readSequence: 0,
  } as const;
  const node = run1(follower, { type: 'message', from: 0, message });
  if (lastLogIndex(node) !== last + 1) throw new Error('bench: append refused');
  return node;
}

/**
 * CPU microseconds per call of `round`, each on the state before: the best of `runs` runs
 * of at least roundsMin calls and cpuMicrosMin, each from `start`.
 */
function cost(start: Node, round: (node: Node, seq: number) => Node): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    let node = start;
    let rounds = 0;
    let micros = 0;
    const before = process.cpuUsage();
    while (rounds < roundsMin || micros < cpuMicrosMin) {
      node = round(node, rounds++);
      const used = process.cpuUsage(before);
      micros = used.user + used.system;
    }
    best = Math.min(best, micros / rounds);
  }
  return best;
}

interface Figures {
  readonly length: number;
  readonly leaderMicros: number;
  readonly followerMicros: number;
}

function measure(length: number): Figures {
  const leader = leaderOver(length);
  const follower = restarted(1, length);
  const propose = (node: Node, seq: number) => leaderRound(node, command(seq));
  const leaderMicros = cost(leader, propose);
  const followerMicros = cost(follower, followerAppend);
  return { length, leaderMicros, followerMicros };
}

async function run(): Promise<void> {
  measure(lengths[0]!); // warm-up, so that the first length is not measured while compiling
  const figures = lengths.map(measure);
  for (const { length, leaderMicros, followerMicros } of figures) {
    console.log(`log of ${length} entries: leader round (propose 1, durable, send, ack) ` +
      `${leaderMicros.toFixed(1)} us CPU, follower append of 1 ${followerMicros.toFixed(1)} us CPU`);
  }
  const first = figures[0]!;
  const last = figures[figures.length - 1]!;
  const load = loadavg().map((average) => average.toFixed(1)).join(' ');
  console.log(`ratio ${last.length} / ${first.length} entries: leader ` +
    `${(last.leaderMicros / first.leaderMicros).toFixed(2)}x, follower ` +
    `${(last.followerMicros / first.followerMicros).toFixed(2)}x (bar: <= 2x; ` +
    `load average ${load})`);
}

export const raftLogBench: BenchSection = {
  name: 'raft-log',
  description: 'one proposal and one follower append against the length of the Raft log',
  run,
};
