/**
 * CONTRACT's request bounds: a key of at most maxKeyBytes and a value of at most maxValueBytes
 * of UTF-8. Checked by the clerk before anything is sent and again by the server, which must
 * bound what it accepts whoever the client is.
 */

/** The UTF-8 length of `text`, counted without encoding it (a value may be a mebibyte). */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
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
