/**
 * Peer authentication with the cluster secret: a challenge-response handshake in both
 * directions, then every data frame carries an HMAC-SHA256 over a per-direction counter and the
 * payload, keyed by session keys derived from the handshake. A stranger without the secret
 * cannot complete the handshake, claim another node's name, inject a frame, or replay one
 * (fresh nonces per connection, counters per frame).
 *
 *     dialer   -> HELLO      version, dialer nonce, dialer name, acceptor name
 *     acceptor -> CHALLENGE  acceptor nonce, HMAC(secret, "accept" | transcript)
 *     dialer   -> AUTH       HMAC(secret, "dial" | transcript)
 *     either   -> DATA       HMAC(session key of its direction, counter | payload), payload
 *     either   -> CONTROL    HMAC(session key, "control" | counter | payload), payload
 *
 * The transcript binds the version, both nonces and both names.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const protocolVersion = 1;
export const nonceBytes = 16;
export const macBytes = 32;
export const nameBytesMax = 255;

export enum FrameType {
  Hello = 1,
  Challenge = 2,
  Auth = 3,
  Data = 4,
  /** Process control (cluster status, fault injection): admin peers only, never faulted. */
  Control = 5,
}

/** Which stream a data frame belongs to; the MAC covers it, so it cannot be flipped. */
export type Channel = 'data' | 'control';

export interface Hello {
  readonly version: number;
  readonly nonce: Buffer;
  readonly from: string;
  readonly to: string;
}

export function newNonce(): Buffer {
  return randomBytes(nonceBytes);
}

export function encodeHello(hello: Hello): Buffer {
  const from = Buffer.from(hello.from, 'utf8');
  const to = Buffer.from(hello.to, 'utf8');
  if (from.length > nameBytesMax || to.length > nameBytesMax) throw new RangeError('name too long');
  return Buffer.concat([
    Buffer.of(FrameType.Hello, hello.version), hello.nonce,
    Buffer.of(from.length), from, Buffer.of(to.length), to,
  ]);
}

/** Parses a HELLO frame body; null if it is malformed. */
export function decodeHello(body: Buffer): Hello | null {
  if (body.length < 2 + nonceBytes + 2 || body[0] !== FrameType.Hello) return null;
  const nonce = body.subarray(2, 2 + nonceBytes);
  let offset = 2 + nonceBytes;
  const fromLength = body[offset]!;
  const from = body.subarray(offset + 1, offset + 1 + fromLength);
  offset += 1 + fromLength;
  if (offset >= body.length) return null;
  const toLength = body[offset]!;
  const to = body.subarray(offset + 1, offset + 1 + toLength);
  if (offset + 1 + toLength !== body.length || fromLength === 0 || toLength === 0) return null;
  return { version: body[1]!, nonce, from: from.toString('utf8'), to: to.toString('utf8') };
}

/** What both proofs and both session keys are computed over. */
export function transcript(hello: Hello, acceptorNonce: Buffer): Buffer {
  return Buffer.concat([encodeHello(hello), acceptorNonce]);
}

function mac(key: Uint8Array, label: string, ...parts: Uint8Array[]): Buffer {
  const hmac = createHmac('sha256', key).update(label);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

export function acceptorProof(secret: Uint8Array, transcriptBytes: Buffer): Buffer {
  return mac(secret, 'shardkv accept', transcriptBytes);
}

export function dialerProof(secret: Uint8Array, transcriptBytes: Buffer): Buffer {
  return mac(secret, 'shardkv dial', transcriptBytes);
}

export interface SessionKeys {
  readonly dialerToAcceptor: Buffer;
  readonly acceptorToDialer: Buffer;
}

export function sessionKeys(secret: Uint8Array, transcriptBytes: Buffer): SessionKeys {
  return {
    dialerToAcceptor: mac(secret, 'shardkv key dialer to acceptor', transcriptBytes),
    acceptorToDialer: mac(secret, 'shardkv key acceptor to dialer', transcriptBytes),
  };
}

/** The MAC of the `counter`-th data or control frame in one direction. */
export function dataMac(
  key: Buffer, counter: number, payload: Uint8Array, channel: Channel = 'data',
): Buffer {
  const counterBytes = Buffer.alloc(8);
  counterBytes.writeBigUInt64BE(BigInt(counter));
  return mac(key, channel === 'data' ? '' : 'control', counterBytes, payload);
}

export function macsEqual(first: Buffer, second: Buffer): boolean {
  return first.length === second.length && timingSafeEqual(first, second);
}
