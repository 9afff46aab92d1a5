/**
 * The wire protocol between servers and clerks: every frame is binary, in this order:
 *
 *     version u8 (1), kind u8 (1 raft, 2 request, 3 reply), has-stamp u8 (0 or 1),
 *     [stamp: id as sized UTF-8, clock varint], then by kind:
 *     raft     the message (wire-raft.ts: numbers as varints, commands as sized JSON)
 *     request  id varint, the body as JSON with maps (json-maps.ts) to the frame's end
 *     reply    id varint, the body likewise
 *
 * - `raft`: a Raft message between two replicas of one Raft group (spec/raft/types.ts).
 * - `request` / `reply`, matched by the sender's `id`: a key/value request to a group, a
 *   controller command (register-client, query; join / leave / move for admins only), a
 *   migration command from a controller server to a group, or a status question.
 *
 * Decoding validates the shape of every frame, since it comes from a peer or a client: a
 * malformed frame (an unknown version or kind, a field cut off, a byte left over) is a `null`,
 * which the receiver logs, closing its connection. What a command means is checked by the
 * state machine, which refuses a malformed one with a result. The transport (impl/net)
 * prefixes the length and authenticates each frame.
 */
import type { ControllerCommand, ControllerCommandResult } from
  '../../spec/controller/state-machine.js';
import type { ClientRequest, GroupCommand, GroupResult } from '../../spec/group/types.js';
import type { Message } from '../../spec/raft/types.js';
import type { ServerStatus } from './api.js';
import { ByteReader, ByteWriter } from '../wal/bytes.js';
import { decodeText, parseWithMaps, stringifyWithMaps } from './json-maps.js';
import { raftMessageBytes, readRaftMessage, writeRaftMessage } from './wire-raft.js';

export type RequestBody =
  | { readonly type: 'kv'; readonly request: ClientRequest }
  | { readonly type: 'controller'; readonly command: ControllerCommand }
  | { readonly type: 'group'; readonly command: GroupCommand }
  | { readonly type: 'status' };

export type ReplyBody =
  | { readonly type: 'group-result'; readonly result: GroupResult }
  /** `published`: for a configuration result, whether config.num <= the applied current. */
  | {
      readonly type: 'controller-result';
      readonly result: ControllerCommandResult;
      readonly published: boolean;
    }
  | { readonly type: 'status'; readonly status: ServerStatus }
  /** Not the leader (or it stopped leading before the answer): ask `leader` when named. */
  | { readonly type: 'wrong-leader'; readonly leader: string | null }
  /** A definitive refusal: the request did not and will not take effect. */
  | { readonly type: 'refused'; readonly error: string };

/**
 * What a traced node adds to every frame it sends (impl/trace): a message id unique across
 * its restarts and its Lamport clock. Optional: clerks and untraced nodes send none.
 */
export interface Stamp {
  readonly id: string;
  readonly clock: number;
}

export type Frame = (
  | { readonly kind: 'raft'; readonly message: Message<unknown, unknown> }
  | { readonly kind: 'request'; readonly id: number; readonly body: RequestBody }
  | { readonly kind: 'reply'; readonly id: number; readonly body: ReplyBody }
) & { readonly stamp?: Stamp };

const wireVersion = 1;
const kindCodes = { raft: 1, request: 2, reply: 3 } as const;
/** Version, kind and flag bytes, and three varints (stamp id length, clock, request id). */
const headerBytesMax = 3 + 3 * 8;

/**
 * Whether a body can hold no map: a key/value request and its answers, the bulk of client
 * traffic, are plain JSON, several times quicker to write than with the map replacer.
 */
function holdsNoMap(body: RequestBody | ReplyBody): boolean {
  switch (body.type) {
    case 'kv':
    case 'wrong-leader':
    case 'refused':
      return true;
    case 'group-result': {
      const type = body.result.type;
      return type === 'value' || type === 'ok' || type === 'error';
    }
    default:
      return false;
  }
}

function bodyText(body: RequestBody | ReplyBody): string {
  return holdsNoMap(body) ? JSON.stringify(body) : stringifyWithMaps(body);
}

export function encodeFrame(frame: Frame): Uint8Array {
  const body = frame.kind === 'raft' ? '' : bodyText(frame.body);
  const bodyBytes = Buffer.byteLength(body);
  const stampBytes = frame.stamp === undefined ? 0 : Buffer.byteLength(frame.stamp.id);
  const payloadBytes = frame.kind === 'raft' ? raftMessageBytes(frame.message) : bodyBytes;
  // Sized so that it never grows (a grown writer copies what it holds).
  const writer = new ByteWriter(headerBytesMax + stampBytes + payloadBytes);
  writer.u8(wireVersion).u8(kindCodes[frame.kind]).u8(frame.stamp === undefined ? 0 : 1);
  if (frame.stamp !== undefined) writer.text(frame.stamp.id).varint(frame.stamp.clock);
  if (frame.kind === 'raft') writeRaftMessage(writer, frame.message);
  else writer.varint(frame.id).utf8(body, bodyBytes);
  return writer.finish();
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const requestTypes = ['kv', 'controller', 'group', 'status'];
const replyTypes = ['group-result', 'controller-result', 'status', 'wrong-leader', 'refused'];

function isRequestBody(body: unknown): body is RequestBody {
  if (!isObject(body) || !requestTypes.includes(body.type as string)) return false;
  if (body.type === 'kv') return isObject(body.request);
  if (body.type === 'controller' || body.type === 'group') return isObject(body.command);
  return true;
}

function isReplyBody(body: unknown): body is ReplyBody {
  if (!isObject(body) || !replyTypes.includes(body.type as string)) return false;
  switch (body.type) {
    case 'group-result':
    case 'controller-result':
      return isObject(body.result) && typeof body.result.type === 'string';
    case 'status':
      return isObject(body.status);
    case 'wrong-leader':
      return body.leader === null || typeof body.leader === 'string';
    default:
      return typeof body.error === 'string';
  }
}

/** The frame in `bytes`, or null when it is not a well-formed frame. */
export function decodeFrame(bytes: Uint8Array): Frame | null {
  try {
    return readFrame(new ByteReader(bytes));
  } catch {
    // A field beyond the frame, a bad varint or flag, invalid UTF-8 or JSON, a malformed map.
    return null;
  }
}

function readFrame(reader: ByteReader): Frame | null {
  if (reader.u8() !== wireVersion) return null;
  const kind = reader.u8();
  const stamp = reader.boolean() ? { id: reader.text(), clock: reader.varint() } : undefined;
  // Each shape written out: a spread adding the stamp cost more than decoding a heartbeat.
  if (kind === kindCodes.raft) {
    const message = readRaftMessage(reader);
    reader.end();
    return stamp === undefined ? { kind: 'raft', message } : { kind: 'raft', message, stamp };
  }
  if (kind !== kindCodes.request && kind !== kindCodes.reply) return null;
  const id = reader.varint();
  const body = parseWithMaps(decodeText(reader.rest()));
  if (kind === kindCodes.request) {
    if (!isRequestBody(body)) return null;
    return stamp === undefined
      ? { kind: 'request', id, body } : { kind: 'request', id, body, stamp };
  }
  if (!isReplyBody(body)) return null;
  return stamp === undefined ? { kind: 'reply', id, body } : { kind: 'reply', id, body, stamp };
}
