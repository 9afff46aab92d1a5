/**
 * Process control, spoken on the transport's control frames (admin only, never faulted): the
 * status `cluster status` reports and the fault injection of `cluster net | isolate | heal`.
 * JSON, one request and one reply frame, matched by id. This is plumbing around a node process;
 * it never touches the protocol state.
 */
import type { ServerStatus } from '../node/api.js';

export interface FaultSettings {
  readonly unreliable: boolean;
  readonly seed: number;
  readonly isolated: boolean;
}

export type ControlRequest =
  | { readonly id: number; readonly kind: 'status' }
  | { readonly id: number; readonly kind: 'faults'; readonly faults: FaultSettings };

export interface ControlReply {
  readonly id: number;
  readonly pid: number;
  /** null while the server is still loading its storage. */
  readonly status: ServerStatus | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeControl(message: ControlRequest | ControlReply): Uint8Array {
  return encoder.encode(JSON.stringify(message));
}

/** Parses a control request; null for anything else (logged by the caller). */
export function decodeControlRequest(frame: Uint8Array): ControlRequest | null {
  const message = parse(frame) as Partial<ControlRequest> | null;
  if (message === null || !Number.isSafeInteger(message.id)) return null;
  if (message.kind === 'status') return message as ControlRequest;
  if (message.kind !== 'faults') return null;
  const faults = (message as { faults?: Partial<FaultSettings> }).faults;
  const valid =
    typeof faults?.unreliable === 'boolean' && typeof faults.isolated === 'boolean' &&
    Number.isSafeInteger(faults.seed) && faults.seed! >= 0;
  return valid ? (message as ControlRequest) : null;
}

export function decodeControlReply(frame: Uint8Array): ControlReply | null {
  const message = parse(frame) as Partial<ControlReply> | null;
  if (message === null || !Number.isSafeInteger(message.id)) return null;
  if (!Number.isSafeInteger(message.pid) || message.status === undefined) return null;
  return message as ControlReply;
}

function parse(frame: Uint8Array): unknown {
  try {
    const value: unknown = JSON.parse(decoder.decode(frame));
    return typeof value === 'object' && value !== null ? value : null;
  } catch {
    return null;
  }
}
