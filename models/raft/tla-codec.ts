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

/** Pushes the servers packed at words[at, ...) onto `servers`, unpacked; returns the end. */
function unpackServers(words: Int32Array, at: number, servers: number[], count: number): number {
  const fieldMask = (1 << indexBits) - 1;
  for (let server = 0; server < count; server++) {
    const small = words[at++]!;
    const indexes = words[at++]!;
    servers.push(small & 31, (small >>> 5) & 3, ((small >>> 7) & 7) - 1, words[at++]!,
      (small >>> 10) & 7, (small >>> 13) & 31, (small >>> 18) & 31);
    for (let j = 0; j < count; j++) servers.push((indexes >>> (indexBits * j)) & fieldMask);
    for (let j = 0; j < count; j++) {
      servers.push((indexes >>> (matchIndexShift + indexBits * j)) & fieldMask);
    }
    for (let j = 0; j < count; j++) servers.push(words[at++]!);
  }
  return at;
}

export function encoder(raft: TlaRaft) {
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
    at = packServers(words, at, servers, count, width);
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

export function decoder(raft: TlaRaft) {
  const count = raft.bounds.servers;
  const serverWords = count * encodedServerWords(count);
  const electionWords = 2 + count;
  assert(raft.width === 7 + 3 * count, 'the codec knows the servers\' layout of tla-state.ts');
  return (input: WordReader): TlaState => {
    const words = input.words;
    const servers: number[] = [];
    unpackServers(words, input.skip(serverWords), servers, count);
    const messageCount = input.next();
    const messages = numbersAt(words, input.skip(messageCount), messageCount);
    const electionCount = input.next();
    const elections: Int32Array[] = [];
    for (let index = 0; index < electionCount; index++) {
      const at = input.skip(electionWords);
      elections.push(words.slice(at, at + electionWords));
    }
    const logCount = input.next();
    const allLogs = numbersAt(words, input.skip(logCount), logCount);
    return { servers, messages, elections, allLogs };
  };
}
