/**
 * CONTRACT's size limits on key/value requests (keys up to 1,024 bytes, values up to
 * `--max-value-bytes`), enforced where requests enter a node process: a Transport wrapper that
 * answers an oversized request with a refusal before the server sees it, so nothing is written
 * and the clerk reports the reason. Frames too small to break a limit pass undecoded (a decoded
 * string's UTF-8 is never longer than its JSON text).
 */
import type { FrameHandler, Transport } from '../io/transport.js';
import { decodeFrame, encodeFrame } from '../node/wire.js';

export interface RequestLimits {
  readonly maxKeyBytes: number;
  readonly maxValueBytes: number;
}

/** Why this key/value pair is too large, or null. */
export function sizeRefusal(key: string, value: string, limits: RequestLimits): string | null {
  const keyBytes = Buffer.byteLength(key, 'utf8');
  if (keyBytes > limits.maxKeyBytes) {
    return `key of ${keyBytes} bytes exceeds the limit of ${limits.maxKeyBytes} bytes`;
  }
  const valueBytes = Buffer.byteLength(value, 'utf8');
  if (valueBytes > limits.maxValueBytes) {
    return `value of ${valueBytes} bytes exceeds the limit of ${limits.maxValueBytes} bytes`;
  }
  return null;
}

export class LimitedTransport implements Transport {
  constructor(private readonly inner: Transport, private readonly limits: RequestLimits) {}

  get name(): string {
    return this.inner.name;
  }

  send(to: string, frame: Uint8Array): void {
    this.inner.send(to, frame);
  }

  onFrame(handler: FrameHandler): void {
    const smallest = Math.min(this.limits.maxKeyBytes, this.limits.maxValueBytes);
    this.inner.onFrame((from, bytes) => {
      const refusal = bytes.length > smallest ? this.refusal(bytes) : null;
      if (refusal === null) return handler(from, bytes);
      const { id, error } = refusal;
      this.inner.send(from, encodeFrame({ kind: 'reply', id, body: { type: 'refused', error } }));
    });
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private refusal(bytes: Uint8Array): { id: number; error: string } | null {
    const frame = decodeFrame(bytes);
    if (frame?.kind !== 'request' || frame.body.type !== 'kv') return null;
    const { key, value } = frame.body.request as { key: unknown; value: unknown };
    if (typeof key !== 'string' || typeof value !== 'string') return null;
    const error = sizeRefusal(key, value, this.limits);
    return error === null ? null : { id: frame.id, error };
  }
}
