/**
 * What a server does with a frame: a Raft message from a replica of its own group goes into
 * the loop; a request is checked (who may ask what) and its command proposed, answered once it
 * applies (a get is read through ReadIndex instead, dissertation §6.4); a reply belongs to
 * the migration driver's requests. Nothing a peer or a client sends can throw: a malformed
 * frame is logged and its connection closed (the FrameVerdict to the transport), a refused
 * request answered. Whether this server leads is the Raft step's to say (a proposal or a read
 * it refuses), never this file's.
 */
import type { ControllerCommand } from '../../spec/controller/state-machine.js';
import type { Admission } from '../../spec/group/retry-admission.js';
import type { ClientRequest, GroupCommand } from '../../spec/group/types.js';
import type { Input } from '../../spec/raft/types.js';
import type { FrameVerdict } from '../io/transport.js';
import type { ServerStatus } from './api.js';
import type { Proposed } from './raft-loop.js';
import type { HeldRequests } from './held-requests.js';
import type { ReplicaMachine } from './replica-machine.js';
import { oversize } from './request-limits.js';
import type { ResolvedTuning } from './tuning.js';
import { decodeFrame, type ReplyBody, type RequestBody, type Stamp } from './wire.js';

/** What answering frames needs of the server they arrive at (server.ts provides it). */
export interface RequestHost {
  readonly name: string;
  /** The replicas of this server's Raft group by Raft id. */
  readonly peers: readonly string[];
  readonly machine: ReplicaMachine;
  readonly tuning: ResolvedTuning;
  log(line: string): void;
  /** Tracing: a frame arrived with this stamp (the Lamport clock moves past it). */
  received(stamp: Stamp | undefined): void;
  /** A peer's Raft message for the loop. */
  deliverRaft(input: Input<unknown, unknown> & { readonly stamp?: Stamp }): void;
  /** A reply to one of the driver's requests. */
  requestAnswered(id: number, body: ReplyBody): void;
  /** Sends `body` as the reply to request `id` of `to` (nothing once the server died). */
  reply(to: string, id: number, body: ReplyBody): void;
  /** Whether `from` may send admin commands (join / leave / move). */
  isAdmin(from: string): boolean;
  /** Whether `from` is a controller replica (may send the driver's group commands). */
  isController(from: string): boolean;
  status(): ServerStatus | null;
  /** Proposes `command` to the Raft loop; null: the step refused it (not leading). */
  propose(command: unknown, onProposed: (proposed: Proposed) => void): void;
  /** A linearizable read: `serve` once confirmed and applied, `refuse` when refused. */
  readThroughIndex(serve: () => void, refuse: () => void): void;
  /** Answers `reply` once entry `index` applies (its result if its term is `term`). */
  awaitApply(index: number, term: number, reply: (body: ReplyBody) => void): void;
  /** spec/group/retry-admission's decision for a client request: propose it, or wait. */
  admission(request: ClientRequest): Admission;
  /** The client requests this server holds unapplied (what admission decides from). */
  readonly held: HeldRequests;
  /** The leader this server knows, named for a redirect. */
  leaderName(): string | null;
}

/** Controller commands anyone may send; join / leave / move need an admin. */
const openControllerCommands = ['register-client', 'query'];
const adminControllerCommands = ['join', 'leave', 'move'];

export function handleFrame(host: RequestHost, from: string, bytes: Uint8Array): FrameVerdict {
  const frame = decodeFrame(bytes);
  if (frame === null) {
    const what = `a malformed frame of ${bytes.length} bytes (no raft message, request or reply)`;
    host.log(`${host.name}: closed the connection with ${from}: ${what}`);
    return 'malformed';
  }
  host.received(frame.stamp);
  switch (frame.kind) {
    case 'raft': {
      const peer = host.peers.indexOf(from);
      if (peer < 0 || from === host.name) {
        host.log(`${host.name}: dropped a raft message from outsider ${from}`);
        return;
      }
      host.deliverRaft(frame.stamp === undefined
        ? { type: 'message', from: peer, message: frame.message }
        : { type: 'message', from: peer, message: frame.message, stamp: frame.stamp });
      return;
    }
    case 'request':
      handleRequest(host, from, frame.id, frame.body);
      return;
    case 'reply':
      host.requestAnswered(frame.id, frame.body);
      return;
  }
}

function handleRequest(host: RequestHost, from: string, id: number, body: RequestBody): void {
  const reply = (answer: ReplyBody) => host.reply(from, id, answer);
  const refusal = refusalOf(host, from, body);
  if (refusal !== null) return reply({ type: 'refused', error: refusal });
  switch (body.type) {
    case 'status': {
      const status = host.status();
      if (status !== null) reply({ type: 'status', status });
      return;
    }
    case 'kv':
      if (body.request.op === 'get' && host.tuning.readIndexReads) {
        return read(host, body.request, reply);
      }
      return submitClientRequest(host, body.request, reply);
    case 'controller':
    case 'group':
      return submit(host, body.command, reply);
  }
}

/** Why `from` may not ask this of this server, or null when it may. */
function refusalOf(host: RequestHost, from: string, body: RequestBody): string | null {
  const kind = host.machine.kind;
  switch (body.type) {
    case 'status':
      return null;
    case 'kv':
      if (kind !== 'group') return `${host.name} serves no keys`;
      return oversize(body.request.key, body.request.value, host.tuning);
    case 'controller': {
      if (kind !== 'controller') return `${host.name} is not a controller`;
      const type = (body.command as ControllerCommand).type;
      if (openControllerCommands.includes(type)) return null;
      if (!adminControllerCommands.includes(type)) return `not a client command: ${String(type)}`;
      return host.isAdmin(from) ? null : 'not authorized';
    }
    case 'group': {
      if (kind !== 'group') return `${host.name} is not a group server`;
      const type = (body.command as GroupCommand).type;
      if (type === 'client') return 'a key/value request goes as kv';
      // Session expiry is the operator's decision; the migration commands the driver's.
      if (type === 'expire-sessions') return host.isAdmin(from) ? null : 'not authorized';
      return host.isController(from) ? null : 'not authorized';
    }
  }
}

/** A get goes through ReadIndex, not the log (refusalOf checked that this is a group). */
function read(host: RequestHost, request: ClientRequest, reply: (body: ReplyBody) => void) {
  const machine = host.machine;
  if (machine.kind !== 'group') return reply({ type: 'refused', error: 'not a group server' });
  host.readThroughIndex(
    () => reply(machine.read(request)),
    () => reply({ type: 'wrong-leader', leader: host.leaderName() }),
  );
}

/**
 * A write (or a get without ReadIndex): a retry of a request this leader holds unapplied
 * waits for that entry instead of being proposed again (retry-admission.ts).
 */
function submitClientRequest(
  host: RequestHost, request: ClientRequest, reply: (body: ReplyBody) => void,
): void {
  const admission = host.admission(request);
  if (admission.type === 'answer') return reply({ type: 'group-result', result: admission.result });
  if (admission.type === 'await') {
    if (admission.index !== null) return host.awaitApply(admission.index, admission.term!, reply);
    return host.held.join(request.client, (proposed) => answerWhenApplied(host, proposed, reply));
  }
  host.held.queued(request);
  host.propose({ type: 'client', request }, (proposed) => {
    host.held.placed(request, proposed);
    answerWhenApplied(host, proposed, reply);
  });
}

function answerWhenApplied(
  host: RequestHost, proposed: Proposed, reply: (body: ReplyBody) => void,
): void {
  if (proposed === null) return reply({ type: 'wrong-leader', leader: host.leaderName() });
  host.awaitApply(proposed.index, proposed.term, reply);
}

/** Proposes `command`, answering once it applies, or at once when the step refuses it. */
function submit(host: RequestHost, command: unknown, reply: (body: ReplyBody) => void): void {
  host.propose(command, (proposed) => answerWhenApplied(host, proposed, reply));
}
