/**
 * Frames (opaque bytes) between named nodes. Delivery is best effort: a frame may be lost,
 * delayed, duplicated or reordered, and a lost connection is silent, never an exception; Raft
 * retries (paper §5.3: "if followers crash or run slowly, or if network packets are lost, the
 * leader retries AppendEntries RPCs indefinitely").
 */
export type FrameHandler = (from: string, frame: Uint8Array) => FrameVerdict;

/**
 * 'malformed': the frame passed the link's checks but means nothing; the receiver has logged
 * why, and the transport closes the connection it came on (what was queued on it is lost, as
 * on any broken connection; the sender redials).
 */
export type FrameVerdict = 'malformed' | void;

export interface Transport {
  /** This node's name, the `from` that receivers see. */
  readonly name: string;
  /** Queues a frame for `to`; returns at once. The caller may reuse `frame` afterwards. */
  send(to: string, frame: Uint8Array): void;
  /** Sets the one handler of received frames; `from` is the sender's authenticated name. */
  onFrame(handler: FrameHandler): void;
  /** Stops sending and receiving; frames still queued are dropped. */
  close(): Promise<void>;
}
