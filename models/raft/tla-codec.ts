/**
 * The raft.tla preset's codec: its packed state (tla-state.ts) as the checker's words: each
 * server's sixteen words (at three servers) in 3 + N, then the bag, the elections and allLogs,
 * each after its length. It runs once per successor inside the bounds (13.5 million at TLC's
 * bounds) and every word it writes is fingerprinted, compared and queued, so a server's small
 * fields share two words:
 *
 * - term (5 bits, at most 20 and one more outside the bounds), role (2), votedFor + 1 (3),
 *   commitIndex (3), votesResponded (5), votesGranted (5);
 * - nextIndex[j] (3 bits each, at most 5) from bit 0, matchIndex[j] (3 bits each) from bit 15;
 *
 * then its log, and its voterLog (N logs, -1 where absent), as they are.
 */
import { assert } from '../../spec/assert.js';
import type { StateCodec } from '../../checker/model.js';
import type { WordReader, WordWriter } from '../../checker/words.js';
import type { TlaRaft } from './tla-raft.js';
import {
  commitIndexOffset,
  logOffset,
  matchIndexOffset,
  maximumServers,
  nextIndexOffset,
  roleOffset,
  termOffset,
  votedForOffset,
  voterLogOffset,
  votesGrantedOffset,
  votesRespondedOffset,
  type TlaState,
} from './tla-state.js';

/** Bits of an index field (nextIndex, matchIndex) in a server's second word. */
const indexBits = 3;
const matchIndexShift = indexBits * maximumServers;

/** A server's words in the encoding. */
const encodedServerWords = (servers: number) => 3 + servers;

// Two copies of one loop: one function reading both plain and typed arrays is polymorphic,
// and made encoding 2.6 times slower (42 against 16 ms for 112,848 states).
function copyNumbers(target: Int32Array, at: number, numbers: readonly number[]): number {
  for (let index = 0; index < numbers.length; index++) target[at++] = numbers[index]!;
  return at;
}

function copyWords(target: Int32Array, at: number, words: Int32Array): number {
  for (let index = 0; index < words.length; index++) target[at++] = words[index]!;
  return at;
}

/** Writes the servers of `servers` (stride `width`) from `at`; returns the end. */
function packServers(target: Int32Array, at: number, servers: readonly number[], count: number,
  width: number): number {
  const voterLog = voterLogOffset(count);
  const matchIndex = matchIndexOffset(count);
  for (let base = 0; base < count * width; base += width) {
    target[at++] = servers[base + termOffset]! | (servers[base + roleOffset]! << 5) |
      ((servers[base + votedForOffset]! + 1) << 7) | (servers[base + commitIndexOffset]! << 10) |
      (servers[base + votesRespondedOffset]! << 13) | (servers[base + votesGrantedOffset]! << 18);
    let indexes = 0;
    for (let j = 0; j < count; j++) {
      indexes |= (servers[base + nextIndexOffset + j]! << (indexBits * j)) |
        (servers[base + matchIndex + j]! << (matchIndexShift + indexBits * j));
    }
    target[at++] = indexes;
    target[at++] = servers[base + logOffset]!;
    for (let j = 0; j < count; j++) target[at++] = servers[base + voterLog + j]!;
  }
  return at;
}

/** Writes the servers packed at words[at, ...) into `servers`, unpacked; returns the end. */
function unpackServers(words: Int32Array, at: number, servers: number[], count: number,
  width: number): number {
  const fieldMask = (1 << indexBits) - 1;
  const matchIndex = matchIndexOffset(count);
  const voterLog = voterLogOffset(count);
  for (let base = 0; base < count * width; base += width) {
    const small = words[at++]!;
    const indexes = words[at++]!;
    servers[base + termOffset] = small & 31;
    servers[base + roleOffset] = (small >>> 5) & 3;
    servers[base + votedForOffset] = ((small >>> 7) & 7) - 1;
    servers[base + logOffset] = words[at++]!;
    servers[base + commitIndexOffset] = (small >>> 10) & 7;
    servers[base + votesRespondedOffset] = (small >>> 13) & 31;
    servers[base + votesGrantedOffset] = (small >>> 18) & 31;
    for (let j = 0; j < count; j++) {
      servers[base + nextIndexOffset + j] = (indexes >>> (indexBits * j)) & fieldMask;
      servers[base + matchIndex + j] = (indexes >>> (matchIndexShift + indexBits * j)) & fieldMask;
      servers[base + voterLog + j] = words[at++]!;
    }
  }
  return at;
}

/**
 * What the codec keeps of the state it decoded last, the one being expanded: most of its
 * successors share its servers array (a step that only sends, drops or duplicates), whose
 * packed words are then copied rather than packed again, and the next state expanded often
 * has the same elections, whose array is then shared rather than allocated again.
 */
class LastDecoded {
  servers: readonly number[] | undefined;
  readonly packedServers: Int32Array;
  elections: readonly Int32Array[] = [];
  electionWords = new Int32Array(0);

  constructor(serverWords: number) {
    this.packedServers = new Int32Array(serverWords);
  }
}

/** The preset's codec: encode and decode share what was last decoded. */
export function tlaCodec(raft: TlaRaft): StateCodec<TlaState> {
  const last = new LastDecoded(raft.bounds.servers * encodedServerWords(raft.bounds.servers));
  return { encode: encoder(raft, last), decode: decoder(raft, last) };
}

function encoder(raft: TlaRaft, last: LastDecoded) {
  const count = raft.bounds.servers;
  const width = raft.width;
  const serverWords = count * encodedServerWords(count);
  return (state: TlaState, out: WordWriter): void => {
    const { servers, messages, elections, allLogs } = state;
    let electionWords = 0;
    for (let index = 0; index < elections.length; index++) {
      electionWords += elections[index]!.length;
    }
    let at = out.claim(serverWords + messages.length + electionWords + allLogs.length + 3);
    const words = out.words;
    if (servers === last.servers) at = copyWords(words, at, last.packedServers);
    else at = packServers(words, at, servers, count, width);
    words[at++] = messages.length;
    at = copyNumbers(words, at, messages);
    words[at++] = elections.length;
    for (let index = 0; index < elections.length; index++) {
      at = copyWords(words, at, elections[index]!);
    }
    words[at++] = allLogs.length;
    copyNumbers(words, at, allLogs);
  };
}

/** `length` words from `at` as a plain array (the actions slice and index plain arrays). */
function numbersAt(words: Int32Array, at: number, length: number): number[] {
  const numbers: number[] = [];
  for (let index = 0; index < length; index++) numbers.push(words[at + index]!);
  return numbers;
}

/** Whether words[at, at + other.length) equal `other`. */
function wordsEqual(words: Int32Array, at: number, other: Int32Array): boolean {
  for (let index = 0; index < other.length; index++) {
    if (words[at + index] !== other[index]) return false;
  }
  return true;
}

function decoder(raft: TlaRaft, last: LastDecoded) {
  const count = raft.bounds.servers;
  const serverWords = count * encodedServerWords(count);
  const electionWords = 2 + count;
  assert(raft.width === 7 + 3 * count, 'the codec knows the servers\' layout of tla-state.ts');
  // Copied, then written by index: one allocation of a packed array, where pushes grow it
  // three times.
  const zeros: number[] = [];
  for (let index = 0; index < count * raft.width; index++) zeros.push(0);
  return (input: WordReader): TlaState => {
    const words = input.words;
    const servers = zeros.slice();
    const serversAt = input.skip(serverWords);
    unpackServers(words, serversAt, servers, count, raft.width);
    last.servers = servers;
    for (let index = 0; index < serverWords; index++) {
      last.packedServers[index] = words[serversAt + index]!;
    }
    const messageCount = input.next();
    const messages = numbersAt(words, input.skip(messageCount), messageCount);
    const electionCount = input.next();
    const electionsAt = input.skip(electionCount * electionWords);
    const sameElections = last.electionWords.length === electionCount * electionWords &&
      wordsEqual(words, electionsAt, last.electionWords);
    if (!sameElections) {
      const elections: Int32Array[] = [];
      for (let index = 0; index < electionCount; index++) {
        const at = electionsAt + index * electionWords;
        elections.push(words.slice(at, at + electionWords));
      }
      last.elections = elections;
      last.electionWords = words.slice(electionsAt, electionsAt + electionCount * electionWords);
    }
    const logCount = input.next();
    const allLogs = numbersAt(words, input.skip(logCount), logCount);
    return { servers, messages, elections: last.elections, allLogs };
  };
}
