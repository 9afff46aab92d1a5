/**
 * The raft.tla preset's codec: its packed state (tla-state.ts) as the checker's words, the
 * servers' words, then the bag, the elections and allLogs, each after its length. It runs
 * once per successor inside the bounds (13.5 million at TLC's bounds), so it claims a
 * state's words at once and copies them with plain loops.
 */
import type { WordReader, WordWriter } from '../../checker/words.js';
import type { TlaRaft } from './tla-raft.js';
import type { TlaState } from './tla-state.js';

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

export function encode(state: TlaState, out: WordWriter): void {
  const { servers, messages, elections, allLogs } = state;
  let electionWords = 0;
  for (let index = 0; index < elections.length; index++) electionWords += elections[index]!.length;
  const count = servers.length + messages.length + electionWords + allLogs.length + 3;
  let at = out.claim(count);
  const words = out.words;
  at = copyNumbers(words, at, servers);
  words[at++] = messages.length;
  at = copyNumbers(words, at, messages);
  words[at++] = elections.length;
  for (let index = 0; index < elections.length; index++) {
    at = copyWords(words, at, elections[index]!);
  }
  words[at++] = allLogs.length;
  copyNumbers(words, at, allLogs);
}

/** `length` words from `at` as a plain array (the actions slice and index plain arrays). */
function numbersAt(words: Int32Array, at: number, length: number): number[] {
  const numbers: number[] = [];
  for (let index = 0; index < length; index++) numbers.push(words[at + index]!);
  return numbers;
}

export function decoder(raft: TlaRaft) {
  const serverWords = raft.bounds.servers * raft.width;
  const electionWords = 2 + raft.bounds.servers;
  return (input: WordReader): TlaState => {
    const words = input.words;
    const servers = numbersAt(words, input.skip(serverWords), serverWords);
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
