/**
 * The checker's network (DESIGN §2): a bag of in-flight messages with counts, kept sorted by a
 * canonical key so that equal bags are equal values. Deliver, drop and duplicate are the
 * environment's actions; the state constraint bounds the total number of copies.
 */
import type { ModelEnvelope as Envelope, ModelMessage as Message } from './model-state.js';

export interface InFlight {
  readonly key: string;
  readonly envelope: Envelope;
  readonly count: number;
}

export type Bag = readonly InFlight[];

function messageFields(message: Message): string {
  switch (message.type) {
    case 'RequestVoteRequest':
    case 'PreVoteRequest': {
      const kind = message.type === 'RequestVoteRequest' ? 'a' : 'g';
      return `${kind}${message.term},${message.lastLogIndex},${message.lastLogTerm}`;
    }
    case 'RequestVoteResponse':
    case 'PreVoteResponse': {
      const kind = message.type === 'RequestVoteResponse' ? 'b' : 'h';
      return `${kind}${message.term},${message.voteGranted ? 1 : 0}`;
    }
    case 'AppendEntriesRequest': {
      const entries = message.entries.map((entry) => `${entry.term}:${entry.command}`).join(';');
      const { term, prevLogIndex, prevLogTerm, leaderCommit, readSequence } = message;
      return `c${term},${prevLogIndex},${prevLogTerm},${leaderCommit},${readSequence},${entries}`;
    }
    case 'AppendEntriesResponse': {
      const { term, success, matchIndex, conflictTerm, conflictIndex, readSequence } = message;
      const fields = [term, success ? 1 : 0, matchIndex, conflictTerm, conflictIndex, readSequence];
      return `d${fields.join(',')}`;
    }
    case 'InstallSnapshotRequest': {
      const { lastIncludedIndex, lastIncludedTerm, data } = message.snapshot;
      return `e${message.term},${lastIncludedIndex},${lastIncludedTerm},${data.join(';')}`;
    }
    case 'InstallSnapshotResponse':
      return `f${message.term},${message.matchIndex}`;
  }
}

export function envelopeKey(envelope: Envelope): string {
  return `${envelope.from}>${envelope.to}:${messageFields(envelope.message)}`;
}

function find(bag: Bag, key: string): number {
  let start = 0;
  let end = bag.length;
  while (start < end) {
    const middle = (start + end) >>> 1;
    const other = bag[middle]!.key;
    if (other === key) return middle;
    if (other < key) start = middle + 1;
    else end = middle;
  }
  return -start - 1;
}

/** One more copy of the message. */
export function sendMessage(bag: Bag, envelope: Envelope): Bag {
  const key = envelopeKey(envelope);
  const found = find(bag, key);
  if (found >= 0) {
    const copy = bag.slice();
    const item = copy[found]!;
    copy[found] = { key, envelope: item.envelope, count: item.count + 1 };
    return copy;
  }
  const at = -found - 1;
  return [...bag.slice(0, at), { key, envelope, count: 1 }, ...bag.slice(at)];
}

/** One copy fewer; the last copy leaves the bag. */
export function removeMessage(bag: Bag, key: string): Bag {
  const found = find(bag, key);
  if (found < 0) return bag;
  const item = bag[found]!;
  if (item.count > 1) {
    const copy = bag.slice();
    copy[found] = { ...item, count: item.count - 1 };
    return copy;
  }
  return [...bag.slice(0, found), ...bag.slice(found + 1)];
}

export function copiesInFlight(bag: Bag): number {
  let total = 0;
  for (const item of bag) total += item.count;
  return total;
}

/** The bag without the messages from or to `server`: what a network cut off from it loses. */
export function withoutMessagesOf(bag: Bag, server: number): Bag {
  const kept = bag.filter((item) => item.envelope.from !== server && item.envelope.to !== server);
  return kept.length === bag.length ? bag : kept;
}
