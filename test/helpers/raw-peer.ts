// A peer on a raw socket that performs the real handshake (impl/net/handshake.ts) itself, so a
// test can write frames no transport would send; and a poll for what arrives over sockets.
import { connect } from 'node:net';
import * as assert from 'uvu/assert';
import { encodeFrame, FrameReader } from '../../impl/net/frame-reader.js';
import {
  acceptorProof, dialerProof, encodeHello, FrameType, newNonce, protocolVersion, sessionKeys,
  transcript,
} from '../../impl/net/handshake.js';

/** Polls until `condition` holds; a generous limit, so slowness never fails a test. */
export async function until(condition: () => boolean, what: string, action?: () => void) {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (condition()) return;
    action?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.unreachable(`timed out waiting for ${what}`);
}

/** A raw socket that performs the handshake as `from`, with `key` as the secret. */
export async function rawPeer(port: number, from: string, to: string, key: Buffer) {
  const socket = connect(port, '127.0.0.1');
  const reader = new FrameReader(1024);
  const frames: Buffer[] = [];
  let closed = false;
  socket.on('data', (chunk) => frames.push(...reader.push(chunk)));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  const hello = { version: protocolVersion, nonce: newNonce(), from, to };
  socket.write(encodeFrame([encodeHello(hello)]));
  await until(() => frames.length === 1 || closed, 'the challenge');
  const challenge = frames[0];
  if (challenge === undefined) {
    return { socket, keys: null, proofValid: false, isClosed: () => closed };
  }
  const bytes = transcript(hello, challenge.subarray(1, 17));
  socket.write(encodeFrame([Buffer.of(FrameType.Auth), dialerProof(key, bytes)]));
  const proofValid = acceptorProof(key, bytes).equals(challenge.subarray(17));
  return { socket, keys: sessionKeys(key, bytes), proofValid, isClosed: () => closed };
}
