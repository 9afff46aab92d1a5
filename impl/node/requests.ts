/**
 * What a server does with a frame: a Raft message from a replica of its own group goes into
 * the loop; a request is checked (who may ask what) and its command proposed, answered once it
 * applies (a get is read through ReadIndex instead, dissertation §6.4); a reply belongs to
 * the migration driver's requests. Nothing a peer or a client sends can throw: a malformed
 * frame is logged and dropped, a refused request answered.
 */
import type { ControllerCommand } from '../../spec/controller/state-machine.js';
import type { ClientRequest, GroupCommand } from '../../spec/group/types.js';
import { oversize } from './request-limits.js';
import type { NodeServer } from './server.js';
import { decodeFrame, encodeFrame, type ReplyBody, type RequestBody } from './wire.js';

/** Controller commands anyone may send; join / leave / move need an admin. */
const openControllerCommands = ['register-client', 'query'];
const adminControllerCommands = ['join', 'leave', 'move'];

export function handleFrame(server: NodeServer, from: string, bytes: Uint8Array): void {
  const frame = decodeFrame(bytes);
  if (frame === null) {
    server.context.log(`${server.name}: dropped a malformed frame from ${from}`);
    return;
  }
  server.tracer?.receive(frame.stamp);
  switch (frame.kind) {
    case 'raft': {
      const peer = server.context.peers.indexOf(from);
      if (peer < 0 || from === server.name) {
        server.context.log(`${server.name}: dropped a raft message from outsider ${from}`);
        return;
      }
      server.raft?.enqueue(frame.stamp === undefined
        ? { type: 'message', from: peer, message: frame.message }
        : { type: 'message', from: peer, message: frame.message, stamp: frame.stamp });
      return;
    }
    case 'request':
      handleRequest(server, from, frame.id, frame.body);
      return;
    case 'reply':
      server.channel.handleReply(frame.id, frame.body);
      return;
  }
}

function handleRequest(server: NodeServer, from: string, id: number, body: RequestBody): void {
  const reply = (answer: ReplyBody) => {
    if (server.context.isDead()) return;
    const stamp = server.tracer?.stampSend(false);
    server.context.transport.send(from, encodeFrame(stamp === undefined
      ? { kind: 'reply', id, body: answer } : { kind: 'reply', id, body: answer, stamp }));
  };
  const refusal = refusalOf(server, from, body);
  if (refusal !== null) return reply({ type: 'refused', error: refusal });
  switch (body.type) {
    case 'status': {
      const status = server.status();
      if (status !== null) reply({ type: 'status', status });
      return;
    }
    case 'kv':
      if (body.request.op === 'get' && server.context.tuning.readIndexReads) {
        return read(server, body.request, reply);
      }
      return submit(server, { type: 'client', request: body.request }, reply);
    case 'controller':
    case 'group':
      return submit(server, body.command, reply);
  }
}

/** Why `from` may not ask this of this server, or null when it may. */
function refusalOf(server: NodeServer, from: string, body: RequestBody): string | null {
  const kind = server.machine.kind;
  switch (body.type) {
    case 'status':
      return null;
    case 'kv':
      if (kind !== 'group') return `${server.name} serves no keys`;
      return oversize(body.request.key, body.request.value, server.context.tuning);
    case 'controller': {
      if (kind !== 'controller') return `${server.name} is not a controller`;
      const type = (body.command as ControllerCommand).type;
      if (openControllerCommands.includes(type)) return null;
      if (!adminControllerCommands.includes(type)) return `not a client command: ${String(type)}`;
      return server.options.isAdmin(from) ? null : 'not authorized';
    }
    case 'group': {
      if (kind !== 'group') return `${server.name} is not a group server`;
      const type = (body.command as GroupCommand).type;
      if (type === 'client') return 'a key/value request goes as kv';
      return server.options.layout.controllers.includes(from) ? null : 'not authorized';
    }
  }
}

/** A get goes through ReadIndex, not the log (refusalOf checked that this is a group). */
function read(server: NodeServer, request: ClientRequest, reply: (body: ReplyBody) => void) {
  const machine = server.machine;
  if (machine.kind !== 'group') return reply({ type: 'refused', error: 'not a group server' });
  server.readThroughIndex(
    () => reply(machine.read(request)),
    () => reply({ type: 'wrong-leader', leader: server.leaderName() }),
  );
}

/** Proposes `command` if this server leads, answering once it applies (or fails). */
function submit(server: NodeServer, command: unknown, reply: (body: ReplyBody) => void): void {
  const loop = server.raft;
  if (loop === null || loop.raft.role !== 'leader') {
    return reply({ type: 'wrong-leader', leader: server.leaderName() });
  }
  loop.propose(command, (proposed) => {
    if (proposed === null) return reply({ type: 'wrong-leader', leader: server.leaderName() });
    server.replies.add(proposed.index, proposed.term, reply);
  });
}
