// A frame's MAC is HMAC-SHA256 over the channel's label, the frame counter (u64 big-endian)
// and the payload (impl/net/handshake.ts): computed from the key's pads, it must equal what
// node:crypto's Hmac gives for every key, counter, payload and channel.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataMac } from '../../impl/net/handshake.js';

function reference(key: Buffer, counter: number, payload: Uint8Array, control: boolean) {
  const counterBytes = Buffer.alloc(8);
  counterBytes.writeBigUInt64BE(BigInt(counter));
  return createHmac('sha256', key).update(control ? 'control' : '').update(counterBytes)
    .update(payload).digest();
}

test('a frame MAC equals HMAC-SHA256 of label, counter and payload', () => {
  fc.assert(fc.property(
    fc.uint8Array({ minLength: 1, maxLength: 100 }),
    fc.maxSafeNat(),
    fc.uint8Array({ maxLength: 300 }),
    fc.boolean(),
    (keyBytes, counter, payload, control) => {
      const key = Buffer.from(keyBytes);
      const channel = control ? 'control' : 'data';
      // Twice: the second call uses the key's cached pads.
      for (let round = 0; round < 2; round++) {
        assert.equal(dataMac(key, counter, payload, channel),
          reference(key, counter, payload, control));
      }
    }), { numRuns: 300 });
});

test.run();
