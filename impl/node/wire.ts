/**
 * The wire protocol between servers and clerks: every frame is one JSON object in UTF-8 (maps
 * as json-maps.ts writes them).
 *
 * - `raft`: a Raft message between two replicas of one Raft group (spec/raft/types.ts).
 * - `request` / `reply`, matched by the sender's `id`: a key/value request to a group, a
 *   controller command (register-client, query; join / leave / move for admins only), a
 *   migration command from a controller server to a group, or a status question.
 *
 * Decoding validates the shape of every frame, since it comes from a peer or a client: a
 * malformed frame is a `null`, which the receiver logs, closing its connection. What a command
 * means is checked by the state machine, which refuses a malformed one with a result.
 */
import type { ControllerCommand, ControllerCommandResult } from
  '../../spec/controller/state-machine.js';
import type { ClientRequest, GroupCommand, GroupResult } from '../../spec/group/types.js';
import type { Message } from '../../spec/raft/types.js';
import type { ServerStatus } from './api.js';
import {
  commandBytes, decodeText, encodeText, parseWithMaps, stringifyWithMaps,
} from './json-maps.js';
import { concatenateBytes } from '../wal/bytes.js';
import { isRaftMessage } from './wire-raft.js';

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

export function encodeFrame(frame: Frame): Uint8Array {
  const message = frame.kind === 'raft' ? frame.message : null;
  if (message?.type !== 'AppendEntriesRequest' || message.entries.length === 0) {
    return encodeText(stringifyWithMaps(frame));
  }
  // The bytes of encodeText(stringifyWithMaps(frame)), each command's encoded once (json-maps).
  const { entries, ...fields } = message;
  const fieldsText = stringifyWithMaps(fields).slice(0, -1);
  const pieces: Uint8Array[] = [encodeText(`{"kind":"raft","message":${fieldsText},"entries":[`)];
  entries.forEach((entry, position) => {
    pieces.push(encodeText(`${position === 0 ? '' : ','}{"term":${entry.term},"command":`));
    pieces.push(commandBytes(entry.command), closingBrace);
  });
  const stampText = frame.stamp === undefined ? '' : `,"stamp":${JSON.stringify(frame.stamp)}`;
  pieces.push(encodeText(`]}${stampText}}`));
  return concatenateBytes(pieces);
}

const closingBrace = encodeText('}');

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

function isStampOrAbsent(stamp: unknown): boolean {
  return stamp === undefined || (isObject(stamp) && typeof stamp.id === 'string' &&
    Number.isSafeInteger(stamp.clock));
}

/** The frame in `bytes`, or null when it is not a well-formed frame. */
export function decodeFrame(bytes: Uint8Array): Frame | null {
  let value: unknown;
  try {
    value = parseWithMaps(decodeText(bytes));
  } catch {
    return null;
  }
  if (!isObject(value) || !isStampOrAbsent(value.stamp)) return null;
  if (value.kind === 'raft') return isRaftMessage(value.message) ? (value as Frame) : null;
  if (!Number.isSafeInteger(value.id)) return null;
  if (value.kind === 'request') return isRequestBody(value.body) ? (value as Frame) : null;
  if (value.kind === 'reply') return isReplyBody(value.body) ? (value as Frame) : null;
  return null;
}
