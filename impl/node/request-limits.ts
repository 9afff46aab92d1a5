/**
 * CONTRACT's request bounds: a key of at most maxKeyBytes and a value of at most maxValueBytes
 * of UTF-8. Checked by the clerk before anything is sent and again by the server, which must
 * bound what it accepts whoever the client is.
 */

/** The UTF-8 length of `text` without encoding it (a value may be a mebibyte). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      // A surrogate pair is one code point of four bytes.
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

export interface RequestLimits {
  readonly maxKeyBytes: number;
  readonly maxValueBytes: number;
}

/** Why a key/value request is too large, or null when it is within the limits. */
export function oversize(key: unknown, value: unknown, limits: RequestLimits): string | null {
  if (typeof key === 'string' && utf8Length(key) > limits.maxKeyBytes) {
    return `key longer than ${limits.maxKeyBytes} bytes`;
  }
  if (typeof value === 'string' && utf8Length(value) > limits.maxValueBytes) {
    return `value longer than ${limits.maxValueBytes} bytes`;
  }
  return null;
}
