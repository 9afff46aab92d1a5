/**
 * Faults a test plants in the node shell (never the spec) to show that `shardkv mbt` finds a
 * shell that misuses correct protocol decisions (issue 23 item 3). Every switch is off unless
 * a test sets it through ServerBugs.shell; no command line reaches them.
 */
export interface ShellFaults {
  /** The loop drops a hard state that records a vote instead of saving it. */
  readonly skipVoteSave: boolean;
  /** Pending replies survive leadership loss and answer whatever entry applies at the index. */
  readonly replyOverwritten: boolean;
  /** A restored snapshot sets the applied index one below the snapshot's index. */
  readonly snapshotIndexOff: boolean;
  /** A read is served as it arrives: before a quorum confirmed its index and it applied. */
  readonly readBeforeApply: boolean;
}

export const noShellFaults: ShellFaults = {
  skipVoteSave: false, replyOverwritten: false, snapshotIndexOff: false, readBeforeApply: false,
};

export const shellFaultNames = Object.keys(noShellFaults) as (keyof ShellFaults)[];
