/**
 * The two ways a cluster operation fails, which the CLI turns into CONTRACT's exit codes:
 * bad input (no cluster in DIR, a cluster already there, an unknown node) exits 2; an operation
 * that ran and failed (a node that will not start, a refused request, a timeout) exits 1.
 */
export class ClusterInputError extends Error {
  override name = 'ClusterInputError';
}

export class ClusterFailure extends Error {
  override name = 'ClusterFailure';
}
