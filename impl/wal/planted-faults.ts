/**
 * A test-only switch that plants a fault in the WAL: reading records without verifying their
 * checksums (issue 26's "a WAL that skips its checksum"). Nothing but a test sets it; the
 * tests that do show that `simulate` (its DiskDamage check) and the WAL tests find the fault,
 * so the checks that rely on checksums cannot pass without them.
 */
let skipChecksums = false;

export function checksumsSkipped(): boolean {
  return skipChecksums;
}

/** Runs `body` with checksum verification off, and switches it back on afterwards. */
export async function withChecksumsSkipped<T>(body: () => Promise<T>): Promise<T> {
  skipChecksums = true;
  try {
    return await body();
  } finally {
    skipChecksums = false;
  }
}
