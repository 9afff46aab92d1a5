/**
 * How long one attempt of a request waits for its answer before the client tries again
 * (issue 27's retry storms): a fixed 250 ms sent a 1 MiB put again while the first copy was
 * still being replicated and fsynced, and every copy cost the leader the same work again. An
 * attempt's timeout grows with the request's size (a larger entry takes longer to write and
 * replicate; a get of a large value takes longer to serialise and send back) and doubles with every retry since the request was last routed (exponential
 * back-off), up to a cap; a random jitter keeps clients that failed together from retrying
 * together. The shell supplies the jitter and caps the result by the request's deadline.
 */
import { assert } from '../assert.js';
import { utf8Bytes } from '../group/size-policy.js';
import type { ClientRequest } from '../group/types.js';

export interface AttemptTimeouts {
  /** The first attempt of an empty request waits this long. */
  readonly baseMs: number;
  /** Added to the first attempt's timeout per MiB of key and value. */
  readonly msPerMebibyte: number;
  /** No attempt waits longer (back-off included, jitter included). */
  readonly maxMs: number;
}

export const defaultAttemptTimeouts: AttemptTimeouts = {
  baseMs: 250,
  msPerMebibyte: 2000,
  maxMs: 8000,
};

/** Doublings beyond this change nothing (the cap is reached long before). */
const doublingsMax = 20;

/**
 * What a request weighs for its timeout: its key and value in UTF-8 bytes, and for a get the
 * value it should bring back, `knownValueBytes` (the size the shell last saw for the key: a
 * 24 MiB value is not read back within 250 ms, and each early retry makes the leader
 * serialise it again).
 */
export function requestBytes(request: ClientRequest, knownValueBytes = 0): number {
  assert(knownValueBytes >= 0, `bad known value size ${knownValueBytes}`);
  const answer = request.op === 'get' ? knownValueBytes : 0;
  return utf8Bytes(request.key) + utf8Bytes(request.value) + answer;
}

/**
 * The timeout of attempt number `retry` (0: the first since the request was routed) of a
 * request of `bytes` (requestBytes); `jitter` in [0, 1) lengthens it by up to a half.
 */
export function attemptTimeoutMs(
  settings: AttemptTimeouts,
  bytes: number,
  retry: number,
  jitter: number,
): number {
  assert(settings.baseMs > 0 && settings.maxMs >= settings.baseMs, 'bad attempt timeouts');
  assert(Number.isSafeInteger(retry) && retry >= 0, `bad retry number ${retry}`);
  assert(jitter >= 0 && jitter < 1, `jitter ${jitter} is not in [0, 1)`);
  assert(bytes >= 0, `bad request size ${bytes}`);
  const first = settings.baseMs + (settings.msPerMebibyte * bytes) / 2 ** 20;
  const grown = first * 2 ** Math.min(retry, doublingsMax);
  const timeoutMs = Math.min(settings.maxMs, grown * (1 + jitter / 2));
  assert(timeoutMs >= settings.baseMs && timeoutMs <= settings.maxMs, 'timeout out of range');
  return timeoutMs;
}
