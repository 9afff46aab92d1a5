/**
 * Splits a TCP byte stream into frames: a u32 big-endian length, then that many bytes. A length
 * of zero or above the maximum is a protocol violation (FrameError): the connection is closed
 * rather than trusted to resynchronise. Buffers at most one frame plus one chunk.
 */
export class FrameError extends Error {
  override name = 'FrameError';
}

export const frameLengthBytes = 4;

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Raised once the peer has authenticated (connection.ts). */
  constructor(public maxFrameBytes: number) {}

  /** Adds received bytes; returns the frames they complete, in order. */
  push(chunk: Buffer): Buffer[] {
    this.append(chunk);
    const frames: Buffer[] = [];
    // Each iteration consumes one whole frame, so the loop ends when the bytes run out.
    for (let frame = this.next(); frame !== null; frame = this.next()) frames.push(frame);
    return frames;
  }

  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /**
   * The next complete frame, or null until more bytes arrive; checked against the maximum in
   * force now, so a limit raised after one frame applies to the next.
   */
  next(): Buffer | null {
    if (this.buffered < frameLengthBytes) return null;
    const length = this.peek(frameLengthBytes).readUInt32BE(0);
    if (length === 0) throw new FrameError('empty frame');
    if (length > this.maxFrameBytes) {
      const maximum = this.maxFrameBytes;
      throw new FrameError(`frame of ${length} bytes exceeds the maximum of ${maximum}`);
    }
    if (this.buffered < frameLengthBytes + length) return null;
    return this.take(frameLengthBytes + length).subarray(frameLengthBytes);
  }

  private peek(count: number): Buffer {
    const first = this.chunks[0]!;
    return first.length >= count ? first : Buffer.concat(this.chunks).subarray(0, count);
  }

  private take(count: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const taken = all.subarray(0, count);
    const rest = all.subarray(count);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return taken;
  }
}

/** The frame with its length prefix, ready for the socket. */
export function encodeFrame(parts: readonly Uint8Array[]): Buffer {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const frame = Buffer.allocUnsafe(frameLengthBytes + length);
  frame.writeUInt32BE(length, 0);
  let offset = frameLengthBytes;
  for (const part of parts) {
    frame.set(part, offset);
    offset += part.length;
  }
  return frame;
}
