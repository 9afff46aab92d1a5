/**
 * The shape check of a Raft message read off the wire (spec/raft/types.ts Message): the spec's
 * step function asserts on what it is given, so a malformed message must never reach it.
 * Commands inside entries are the state machine's to judge (it refuses what it cannot apply).
 */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isNatural = (value: unknown): boolean => Number.isSafeInteger(value) && Number(value) >= 0;

function allNatural(record: Record<string, unknown>, fields: readonly string[]): boolean {
  return fields.every((field) => isNatural(record[field]));
}

function isEntry(value: unknown): boolean {
  return isObject(value) && isNatural(value.term) && 'command' in value;
}

function isSnapshot(value: unknown): boolean {
  return isObject(value) && allNatural(value, ['lastIncludedIndex', 'lastIncludedTerm']) &&
    'data' in value;
}

export function isRaftMessage(value: unknown): boolean {
  if (!isObject(value) || !isNatural(value.term)) return false;
  switch (value.type) {
    case 'RequestVoteRequest':
    case 'PreVoteRequest':
      return allNatural(value, ['lastLogIndex', 'lastLogTerm']);
    case 'RequestVoteResponse':
    case 'PreVoteResponse':
      return typeof value.voteGranted === 'boolean';
    case 'AppendEntriesRequest':
      return allNatural(value, ['prevLogIndex', 'prevLogTerm', 'leaderCommit', 'readSequence']) &&
        Array.isArray(value.entries) && value.entries.every(isEntry);
    case 'AppendEntriesResponse':
      return typeof value.success === 'boolean' &&
        allNatural(value, ['matchIndex', 'conflictTerm', 'conflictIndex', 'readSequence']);
    case 'InstallSnapshotRequest':
      return isSnapshot(value.snapshot);
    case 'InstallSnapshotResponse':
      return isNatural(value.matchIndex);
    default:
      return false;
  }
}
