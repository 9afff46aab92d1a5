/** A WAL or snapshot file that cannot be trusted, named with the byte offset of the damage. */
export class WalCorruptionError extends Error {
  override name = 'WalCorruptionError';

  constructor(readonly file: string, readonly offset: number, readonly reason: string) {
    super(`disk damage in ${file} at offset ${offset}: ${reason}`);
  }
}

/** What load() repaired, for the node's log: never silent. */
export type RecoveryEvent =
  | {
      readonly kind: 'torn-tail';
      readonly file: string;
      readonly offset: number;
      readonly droppedBytes: number;
      readonly reason: string;
    }
  | { readonly kind: 'leftover-temporary'; readonly file: string };

export function describeRecovery(event: RecoveryEvent): string {
  if (event.kind === 'leftover-temporary') {
    return `wal: removed ${event.file}, a snapshot that was never completed or never taken`;
  }
  return `wal: truncated ${event.file} at offset ${event.offset} ` +
    `(${event.droppedBytes} bytes dropped: ${event.reason})`;
}
