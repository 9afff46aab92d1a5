/**
 * The network of a runtime replay (`shardkv replay FILE --runtime`): every frame a node sends
 * is held, in send order, until the trace says what happens to it. The replay delivers,
 * duplicates or drops one held frame at a time, chosen by what the frame carries (a checker
 * trace names messages by content, not by an id), so no frame moves unless a step says so.
 */
import { assert } from '../../spec/assert.js';
import type { FrameHandler, Transport } from '../../impl/io/transport.js';
import { decodeFrame, type Frame } from '../../impl/node/wire.js';
import { RuntimeDivergence } from './adapter.js';

/**
 * One frame in flight. Its bytes are decoded when the replay first reads what it carries, not
 * when it is sent: its receiver decodes them anyway (the node's own code), and most frames the
 * controller's replay moves are chosen by sender and receiver alone. A malformed frame is a
 * divergence when it is read, or when its receiver refuses it as one (`deliver`).
 */
export class HeldFrame {
  private decoded: Frame | null = null;

  constructor(readonly from: string, readonly to: string, readonly bytes: Uint8Array) {}

  get frame(): Frame {
    if (this.decoded === null) {
      const frame = decodeFrame(this.bytes);
      if (frame === null) throw new RuntimeDivergence(malformed(this));
      this.decoded = frame;
    }
    return this.decoded;
  }

  /** Another copy of the frame in flight (a duplicate, or one kept out of the network). */
  copy(): HeldFrame {
    const copy = new HeldFrame(this.from, this.to, this.bytes.slice());
    copy.decoded = this.decoded;
    return copy;
  }
}

const malformed = (held: HeldFrame) => `${held.from} sent a malformed frame to ${held.to}`;

/** Frames held at once beyond which a send is a bug of the replay (STYLE 7: bounded). */
export const heldFramesMax = 10_000;

export class HeldNetwork {
  private held: HeldFrame[] = [];
  private readonly handlers = new Map<string, FrameHandler>();

  /** The transport of node `name`; a later endpoint of the same name replaces it (restart). */
  endpoint(name: string): Transport {
    const network = this;
    let open = true;
    let own: FrameHandler | null = null;
    return {
      name,
      send(to, frame) {
        if (open) network.hold(name, to, frame);
      },
      onFrame(handler) {
        if (!open) return;
        own = handler;
        network.handlers.set(name, handler);
      },
      async close() {
        open = false;
        // A later endpoint of the same name (a restarted process) keeps its handler.
        if (own !== null && network.handlers.get(name) === own) network.handlers.delete(name);
      },
    };
  }

  /** Forgets `name`'s handler: frames delivered to a crashed node are lost. */
  disconnect(name: string): void {
    this.handlers.delete(name);
  }

  /** Every frame in flight, oldest first. */
  frames(): readonly HeldFrame[] {
    return this.held;
  }

  /** The oldest held frame that `matches` accepts, or undefined. */
  find(matches: (held: HeldFrame) => boolean): HeldFrame | undefined {
    return this.held.find(matches);
  }

  /** Takes `held` out of the network and hands it to its receiver (if that one listens). */
  deliver(held: HeldFrame): void {
    this.remove(held);
    const verdict = this.handlers.get(held.to)?.(held.from, held.bytes);
    if (verdict === 'malformed') throw new RuntimeDivergence(malformed(held));
  }

  /** Adds a second copy of `held` to the frames in flight (the model's Duplicate). */
  duplicate(held: HeldFrame): HeldFrame {
    assert(this.held.includes(held), 'only a held frame can be duplicated');
    const copy = held.copy();
    this.held.push(copy);
    return copy;
  }

  /**
   * Puts in flight a frame kept out of the network (a migration replay's late copy): it was
   * sent before its sender's process crashed, and a crash loses only what is still queued at
   * the sender, so the copy may still arrive.
   */
  inject(held: HeldFrame): void {
    assert(this.held.length < heldFramesMax, `more than ${heldFramesMax} frames held`);
    this.held.push(held);
  }

  /** Drops every frame from or to `name` (a crashed process's connections are gone). */
  dropAll(name: string): void {
    this.held = this.held.filter((held) => held.from !== name && held.to !== name);
  }

  drop(held: HeldFrame): void {
    this.remove(held);
  }

  private remove(held: HeldFrame): void {
    const position = this.held.indexOf(held);
    assert(position >= 0, 'the frame is not in flight');
    this.held.splice(position, 1);
  }

  private hold(from: string, to: string, bytes: Uint8Array): void {
    assert(this.held.length < heldFramesMax, `more than ${heldFramesMax} frames held`);
    // A copy: the sender may reuse its buffer once send returns (Transport.send).
    this.held.push(new HeldFrame(from, to, bytes.slice()));
  }
}
