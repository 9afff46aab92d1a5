/**
 * Messages between the disk search on several threads (disk-parallel.ts) and its workers
 * (disk-expand-worker.ts). A chunk holds frontier states, each its length then its words. A
 * reply holds, per state in the chunk's order, three words (states generated, flags, the
 * candidates that follow), then per candidate its fingerprint (high, low), action index,
 * length and words, in the order one thread generates them.
 */
import type { ModelSource } from './load-model.js';
import type { Params } from './model.js';

/** Flag: the worker did not expand the state; the main thread does it itself. */
export const expandedBySelf = 1;
/** Words of a state's header in a reply, and before each candidate's encoding. */
export const stateHeaderWords = 3;
export const candidateHeaderWords = 4;

export interface DiskWorkerSetup {
  readonly model: ModelSource;
  readonly params: Params;
  readonly bug: string | undefined;
  /** Slots of the worker's cache of fingerprints it generated (a power of two). */
  readonly seenSlots: number;
}

export interface ChunkRequest {
  readonly chunk: Int32Array;
  readonly count: number;
  /** A buffer for the reply to fill (moved back and forth, grown when too small). */
  readonly out: ArrayBuffer;
}

export interface ExpandedChunk {
  readonly type: 'expanded';
  /** The request's chunk, moved back. */
  readonly chunk: Int32Array;
  readonly count: number;
  readonly out: ArrayBuffer;
  /** Words of `out` written. */
  readonly length: number;
}

export type ChunkReply = { readonly type: 'ready' } | ExpandedChunk;
