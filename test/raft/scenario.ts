/**
 * A tiny interpreter for golden Raft scenarios in the style of etcd's raft testdata: each
 * case is one command, a `----` line, and the expected output, cases separated by a blank
 * line. Commands (servers are numbered from 1):
 *
 *   cluster servers=N [values=V] [bug=NAME] [pre-vote] [check-quorum] [read-round-to-quorum]
 *                                             start a fresh cluster (default: 3 servers)
 *   timeout N | heartbeat N M | client N [V] | read N
 *   compact N                                 N's application snapshots at its commit index
 *   deliver N M [TYPE] | drop N M [TYPE] | duplicate N M [TYPE]   the first such message
 *   crash N | restart N                       N stops taking steps; restart from what its
 *                                             disk made durable
 *   sync N                                    N's disk makes its leader's entries durable
 *                                             and reports them (logDurable)
 *   elect N                                   timeout, ask every peer, stabilize (twice
 *                                             with PreVote: pre-vote, then vote)
 *   stabilize                                 deliver to live servers and sync their disks
 *                                             until nothing is left
 *   dump                                      every server and the messages in flight
 *
 * Every step goes through the `raft` model (so it is a step the checker explores, with its
 * effects printed), and the invariants are checked after it.
 */
import { assert } from '../../spec/assert.js';
import { isBugName } from '../../spec/bug-catalog.js';
import { raftBugNames, type RaftBugs } from '../../spec/raft/bugs.js';
import { raftInvariants } from '../../models/raft/invariants.js';
import type {
  ModelData,
  ModelEnvelope,
  ModelMessage,
  ModelNode,
  RaftBounds,
  RaftModelState,
} from '../../models/raft/model-state.js';
import {
  initialModelState, raftLabel, stepModel, type RaftAction,
} from '../../models/raft/model.js';
import { logEntriesArray } from '../../spec/raft/log-entries.js';
import type { Effect, Entry, RaftOptions, Snapshot } from '../../spec/raft/types.js';

const wideBounds = {
  maxTerm: 20,
  maxLog: 20,
  maxMsgs: 100,
  maxRestarts: 100,
  maxCompactions: 100,
  maxReads: 100,
};
const maximumStabilizeSteps = 200;

const name = (id: number) => `s${id + 1}`;

/** The servers in a mask, by name, lowest id first. */
function peerNames(mask: number): string[] {
  const names: string[] = [];
  for (let id = 0; mask >> id !== 0; id++) if ((mask & (1 << id)) !== 0) names.push(name(id));
  return names;
}
const commandText = (command: number | null) => (command === null ? 'noop' : `v${command + 1}`);
const entryText = (entry: Entry<number>) => `${entry.term}/${commandText(entry.command)}`;
const entriesText = (entries: readonly Entry<number>[]) => `[${entries.map(entryText).join(' ')}]`;
const logText = (log: readonly Entry<number>[]) => `log=${entriesText(log)}`;
const snapshotText = (snapshot: Snapshot<ModelData>) =>
  `snapshot=${snapshot.lastIncludedIndex}/${snapshot.lastIncludedTerm}`;
const voteText = (votedFor: number | null) => (votedFor === null ? '-' : name(votedFor));

function messageText(message: ModelMessage): string {
  const { type, ...fields } = message;
  const parts = Object.entries(fields).map(([field, value]) => {
    if (field === 'entries') return `entries=${entriesText(value as Entry<number>[])}`;
    if (field === 'snapshot') return snapshotText(value as Snapshot<ModelData>);
    return `${field}=${String(value)}`;
  });
  return `${type} ${parts.join(' ')}`;
}

function effectText(id: number, effect: Effect<number, ModelData>): string {
  switch (effect.type) {
    case 'saveHardState': {
      const { currentTerm, votedFor, commitIndex } = effect.hardState;
      const vote = voteText(votedFor);
      return `${name(id)} save term=${currentTerm} vote=${vote} commit=${commitIndex} ` +
        effect.sync;
    }
    case 'saveEntries':
      return `${name(id)} save entries from=${effect.fromIndex} ` +
        `${entriesText(effect.entries)} ${effect.sync}`;
    case 'saveSnapshot':
      return `${name(id)} save ${snapshotText(effect.snapshot)} ${effect.sync}`;
    case 'readReady':
      return `${name(id)} read ${effect.requestId} ready at ${effect.index}`;
    case 'readRefused':
      return `${name(id)} read ${effect.requestId} refused`;
    case 'send':
      return `${name(id)}->${name(effect.to)} ${messageText(effect.message)}`;
    case 'apply':
      const entries = effect.entries.map((entry) => `${entry.index}:${entryText(entry)}`);
      return `${name(id)} apply ${entries.join(' ')}`;
    case 'restoreSnapshot':
      return `${name(id)} restore ${snapshotText(effect.snapshot)}`;
    case 'setTimer':
      return `${name(id)} timer ${effect.timer}`;
    case 'cancelTimer':
      return `${name(id)} cancel timer ${effect.timer}`;
    case 'sendSoon':
      return effect.peers === undefined ? `${name(id)} send soon`
        : `${name(id)} send soon to ${peerNames(effect.peers).join(' ')}`;
    case 'proposed':
      return `${name(id)} proposed ${effect.count} at ${effect.index}/${effect.term}`;
    case 'proposalRefused':
      return `${name(id)} proposal refused, leader ${voteText(effect.leader)}`;
    case 'leadershipLost':
      return `${name(id)} leadership of term ${effect.term} lost`;
    case 'leaderReady':
      return `${name(id)} leader of term ${effect.term} ready at ${effect.index}`;
  }
}

export function serverText(server: ModelNode, down: boolean): string {
  const vote = voteText(server.votedFor);
  const parts = [
    `${name(server.id)}${down ? ' (down)' : ''} ${server.role}`,
    `term=${server.currentTerm} vote=${vote} commit=${server.commitIndex} ${logText(logEntriesArray(server.log))}`,
  ];
  if (server.role === 'follower' && server.leader !== null)
    parts.push(`leader=${name(server.leader)}`);
  const snapshot = server.snapshot;
  if (snapshot !== null) {
    const values = snapshot.data.map(commandText).join(' ');
    parts.push(`${snapshotText(snapshot)}[${values}]`);
  }
  if (server.role === 'leader') {
    const next = server.progress.map((progress) => progress.next).join(' ');
    const match = server.progress.map((progress) => progress.match).join(' ');
    parts.push(`next=[${next}] match=[${match}]`);
  }
  return parts.join(' ');
}

export class Scenario {
  state: RaftModelState;
  bounds: RaftBounds;
  options: RaftOptions = {};
  readonly down = new Set<number>();

  constructor(servers = 3, values = 1) {
    this.bounds = { servers, values, ...wideBounds };
    this.state = initialModelState(this.bounds);
  }

  /** Takes one model step; returns its printed lines. */
  step(action: RaftAction): string[] {
    const actor = 'envelope' in action ? action.envelope.to : action.server;
    const networkOnly = action.type === 'Drop' || action.type === 'Duplicate';
    if (this.down.has(actor) && action.type !== 'Restart' && !networkOnly)
      return [`${name(actor)} is down`];
    const result = stepModel(this.state, action, this.options, this.bounds);
    if (result === null) return [`${raftLabel(action)}: not enabled`];
    this.state = result.state;
    if (action.type === 'Restart') this.down.delete(actor);
    const lines = result.effects.map((effect) => effectText(actor, effect));
    for (const invariant of raftInvariants) {
      if (!invariant.holds(this.state)) lines.push(`VIOLATION: ${invariant.name}`);
    }
    return lines.length > 0 ? lines : ['ok'];
  }

  findMessage(from: number, to: number, type?: string): ModelEnvelope | undefined {
    return this.state.messages.find(
      (item) =>
        item.envelope.from === from &&
        item.envelope.to === to &&
        (type === undefined || item.envelope.message.type === type),
    )?.envelope;
  }

  /** Delivers every message and completes every disk's writes until nothing is left. */
  stabilize(): string[] {
    const lines: string[] = [];
    for (let steps = 0; steps < maximumStabilizeSteps; steps++) {
      const item = this.state.messages.find((candidate) => !this.down.has(candidate.envelope.to));
      if (!item) {
        const synced = this.syncAll();
        if (synced.length === 0) return lines.length > 0 ? lines : ['ok'];
        lines.push(...synced);
        continue;
      }
      const { from, to, message } = item.envelope;
      const result = this.step({ type: 'Deliver', envelope: item.envelope });
      lines.push(`deliver ${name(from)}->${name(to)} ${messageText(message)}`);
      lines.push(...result.filter((line) => line.startsWith('VIOLATION')));
    }
    throw new Error(`stabilize did not settle within ${maximumStabilizeSteps} deliveries`);
  }

  /** A Sync of every running server whose disk has writes to complete, as printed lines. */
  syncAll(): string[] {
    const lines: string[] = [];
    for (let id = 0; id < this.bounds.servers; id++) {
      if (!this.down.has(id)) lines.push(...this.syncOne(id));
    }
    return lines;
  }

  /** Sync(id) when its disk has a leader's entries to complete (else nothing). */
  syncOne(id: number): string[] {
    const result = stepModel(this.state, { type: 'Sync', server: id }, this.options, this.bounds);
    if (result === null) return [];
    this.state = result.state;
    return [`sync ${name(id)}`, ...result.effects.map((effect) => effectText(id, effect))];
  }

  dump(): string[] {
    const lines = this.state.servers.map((server) => serverText(server, this.down.has(server.id)));
    for (const item of this.state.messages) {
      const { from, to, message } = item.envelope;
      const copies = item.count > 1 ? ` x${item.count}` : '';
      lines.push(`in flight: ${name(from)}->${name(to)} ${messageText(message)}${copies}`);
    }
    return lines;
  }
}

function serverArgument(text: string | undefined, scenario: Scenario): number {
  const id = Number(text) - 1;
  assert(Number.isInteger(id) && id >= 0 && id < scenario.bounds.servers, `bad server '${text}'`);
  return id;
}

function messageCommand(
  scenario: Scenario,
  kind: 'Deliver' | 'Drop' | 'Duplicate',
  args: string[],
): string[] {
  const from = serverArgument(args[0], scenario);
  const to = serverArgument(args[1], scenario);
  const envelope = scenario.findMessage(from, to, args[2]);
  if (!envelope)
    return [`no message ${name(from)}->${name(to)}${args[2] ? ` of type ${args[2]}` : ''}`];
  return scenario.step({ type: kind, envelope });
}

/** Runs one command line; returns the new scenario (for `cluster`) and the output lines. */
export function runCommand(
  scenario: Scenario,
  line: string,
): { scenario: Scenario; output: string[] } {
  const [command, ...args] = line.trim().split(/\s+/);
  const server = () => serverArgument(args[0], scenario);
  const peer = () => serverArgument(args[1], scenario);
  const output = (lines: string[]) => ({ scenario, output: lines });
  switch (command) {
    case 'cluster': {
      const settings = Object.fromEntries(args.map((arg) => arg.split('=') as [string, string]));
      const fresh = new Scenario(Number(settings['servers'] ?? 3), Number(settings['values'] ?? 1));
      const bug = settings['bug'];
      fresh.options = {
        preVote: 'pre-vote' in settings,
        checkQuorum: 'check-quorum' in settings,
        ...('read-round-to-quorum' in settings ? { readRoundToQuorum: true } : {}),
        ...(bug ? { bugs: switchOf(bug) } : {}),
      };
      return { scenario: fresh, output: ['ok'] };
    }
    case 'timeout':
      return output(scenario.step({ type: 'Timeout', server: server() }));
    case 'heartbeat':
      return output(scenario.step({ type: 'Heartbeat', server: server(), peer: peer() }));
    case 'read':
      return output(scenario.step({ type: 'ReadIndex', server: server() }));
    case 'client': {
      const value = args[1] === undefined ? 0 : Number(args[1].replace(/^v/, '')) - 1;
      return output(scenario.step({ type: 'ClientRequest', server: server(), value }));
    }
    case 'compact':
      return output(scenario.step({ type: 'CompactLog', server: server() }));
    case 'deliver':
      return output(messageCommand(scenario, 'Deliver', args));
    case 'drop':
      return output(messageCommand(scenario, 'Drop', args));
    case 'duplicate':
      return output(messageCommand(scenario, 'Duplicate', args));
    case 'crash':
      scenario.down.add(server());
      return output(['ok']);
    case 'restart':
      return output(scenario.step({ type: 'Restart', server: server() }));
    case 'sync':
      return output(scenario.step({ type: 'Sync', server: server() }));
    case 'elect': {
      const id = server();
      const lines = scenario.step({ type: 'Timeout', server: id });
      const rounds = scenario.options.preVote === true ? 2 : 1;
      for (let round = 0; round < rounds; round++) {
        for (let other = 0; other < scenario.bounds.servers; other++) {
          if (other !== id)
            lines.push(...scenario.step({ type: 'Heartbeat', server: id, peer: other }));
        }
        lines.push(...scenario.stabilize());
      }
      // The leader's storage syncs its no-op and reports it: the leader counts its own copy.
      lines.push(...scenario.syncOne(id));
      const violations = [...new Set(lines.filter((line) => line.startsWith('VIOLATION')))];
      return output([serverText(scenario.state.servers[id]!, false), ...violations]);
    }
    case 'stabilize':
      return output(scenario.stabilize());
    case 'dump':
      return output(scenario.dump());
    default:
      throw new Error(`unknown command '${command}'`);
  }
}

/** The switch of a catalog bug (spec/raft/bugs.ts), by its name. */
function switchOf(bug: string): RaftBugs {
  if (!isBugName(raftBugNames, bug)) throw new Error(`unknown bug '${bug}'`);
  return { [bug]: true };
}

/** Runs a scenario file's text and returns it with every expected output recomputed. */
export function runScenarioFile(text: string): string {
  const blocks = text.replace(/\n+$/, '').split(/\n\s*\n/);
  let scenario = new Scenario();
  const rewritten: string[] = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    const comments = lines.filter((line) => line.startsWith('#'));
    const body = lines.filter((line) => !line.startsWith('#'));
    const command = body[0];
    if (command === undefined) {
      rewritten.push(comments.join('\n'));
      continue;
    }
    const result = runCommand(scenario, command);
    scenario = result.scenario;
    rewritten.push([...comments, command, '----', ...result.output].join('\n'));
  }
  return rewritten.join('\n\n') + '\n';
}
