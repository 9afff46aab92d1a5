/**
 * Every frame limit, derived in one place from the size policy (CONTRACT's key and value
 * limits), so that whatever the store accepts can be sent back and moved (issue 27: a 24 MiB
 * value grown by appends had a get reply no client could receive). Values travel as JSON text
 * (in binary frames, wire.ts), escaped once, and JSON escapes one UTF-8 byte into at most six
 * (`\u0001`), so six times the key and value bounds any key/value frame whatever the bytes.
 *
 * - a client frame carries one request (key and value) or one reply (a value);
 * - a peer frame carries a Raft append of up to maxEntriesPerAppend such requests, or a
 *   snapshot / shard image, whose size the policy does not bound yet: the allowance below is
 *   what a peer accepts beyond the appends (a larger group cannot be moved or caught up;
 *   issue 21 sends images in bounded chunks).
 */
import { assert } from '../../spec/assert.js';
import type { RequestLimits } from './request-limits.js';

/** The most bytes JSON writes for one byte of UTF-8 text (a control character). */
export const jsonBytesPerByteMax = 6;
/** A frame's fields other than its key and value (ids, stamps, a request's or reply's type). */
export const frameFieldsBytesMax = 64 * 2 ** 10;
/** What a peer frame may hold besides maxEntriesPerAppend maximal requests (see above). */
export const imageAllowanceValues = 16;
/** The least a peer frame may hold (the limit before issue 27, kept for small values). */
export const peerFrameBytesMin = 16 * 2 ** 20;

export interface FrameLimitSettings extends RequestLimits {
  readonly maxEntriesPerAppend: number;
}

/** The largest frame a client sends or receives: one key/value request or its reply. */
export function clientFrameBytes(limits: RequestLimits): number {
  assert(limits.maxKeyBytes > 0 && limits.maxValueBytes > 0, 'request limits are positive');
  return jsonBytesPerByteMax * (limits.maxKeyBytes + limits.maxValueBytes) + frameFieldsBytesMax;
}

/** The largest frame between servers: an append of maximal requests, or an image. */
export function peerFrameBytes(settings: FrameLimitSettings): number {
  assert(settings.maxEntriesPerAppend >= 1, 'an append carries at least one entry');
  const request = clientFrameBytes(settings);
  const images = imageAllowanceValues * jsonBytesPerByteMax * settings.maxValueBytes;
  return settings.maxEntriesPerAppend * request + Math.max(images, peerFrameBytesMin);
}

/**
 * The reply frame to send: `encoded` when it fits the receiver's `limitBytes`, else a
 * refusal that says so, so that the client sees an error instead of waiting out its deadline
 * (the receiver's transport would close the connection on an oversize frame). Under the
 * derived limits an accepted value always fits; this guards against settings that differ.
 */
export function fittingReply(
  encoded: Uint8Array,
  limitBytes: number,
  refusal: (error: string) => Uint8Array,
): Uint8Array {
  if (encoded.length <= limitBytes) return encoded;
  const error = `the reply of ${encoded.length} bytes exceeds the frame limit of ` +
    `${limitBytes} bytes`;
  const refused = refusal(error);
  assert(refused.length <= limitBytes, 'a refusal fits any frame limit');
  return refused;
}
