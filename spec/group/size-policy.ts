/**
 * The group's size policy: a key's value is at most `maxValueBytes` of UTF-8 after any
 * operation, an append's result bounded like a put's value. Without it a key grown by appends
 * passes every per-request check and ends larger than any frame can carry back (issue 27: a
 * 24 MiB value whose get reply no client could receive). The limit is an input of the apply
 * function, the same on every replica (the cluster file's `--max-value-bytes`), so a refusal
 * is a deterministic result of the log, never a shell's check. The models pass
 * `unboundedSizes`: their values are a few bytes, so their state spaces do not change.
 */
import type { ClientRequest } from './types.js';

export interface SizeLimits {
  /** The largest value a key may hold, in UTF-8 bytes. */
  readonly maxValueBytes: number;
  /**
   * The part budget a source cuts a large frozen image by (image-cut.ts): a freeze answers an
   * image heavier than one part with its manifest, and fetch-part hands out its parts. Absent:
   * defaultPartBytes, the runtime's (one append's byte budget).
   */
  readonly imagePartBytes?: number;
}

/** No bound (the models' values are tiny; an infinite limit skips the counting). */
export const unboundedSizes: SizeLimits = { maxValueBytes: Number.POSITIVE_INFINITY };

/**
 * The UTF-8 length of `text` without encoding it (spec/ has no Buffer): a lone surrogate
 * counts 3, as its replacement character encodes.
 */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** Whether `request` would leave its key's value (now `before`) over the limit. */
export function exceedsValueLimit(
  before: string,
  request: ClientRequest,
  limits: SizeLimits,
): boolean {
  const limit = limits.maxValueBytes;
  if (limit === Number.POSITIVE_INFINITY || request.op === 'get') return false;
  // Cheap bounds first: UTF-8 takes between 1 and 3 bytes per UTF-16 unit.
  const units = request.op === 'put' ? request.value.length : before.length + request.value.length;
  if (units <= limit / 3) return false;
  if (units > limit) return true;
  const added = utf8Bytes(request.value);
  return (request.op === 'put' ? added : utf8Bytes(before) + added) > limit;
}
