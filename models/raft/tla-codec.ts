/**
 * The raft.tla preset's codec: its packed state (tla-state.ts) as the checker's words, the
 * servers' words, then the bag, the elections and allLogs, each after its length.
 */
import type { WordReader, WordWriter } from '../../checker/words.js';
import type { TlaRaft } from './tla-raft.js';
import type { TlaState } from './tla-state.js';

/** Copies words one by one: for arrays this short it beats `set` on a subarray view. */
function pushAll(out: WordWriter, words: ArrayLike<number>): void {
  for (let index = 0; index < words.length; index++) out.push(words[index]!);
}

export function encode(state: TlaState, out: WordWriter): void {
  pushAll(out, state.servers);
  out.push(state.messages.length);
  pushAll(out, state.messages);
  out.push(state.elections.length);
  for (const election of state.elections) pushAll(out, election);
  out.push(state.allLogs.length);
  pushAll(out, state.allLogs);
}

function readNumbers(input: WordReader, length: number): number[] {
  const numbers: number[] = [];
  for (let index = 0; index < length; index++) numbers.push(input.next());
  return numbers;
}

export function decoder(raft: TlaRaft) {
  const serverWords = raft.bounds.servers * raft.width;
  const electionWords = 2 + raft.bounds.servers;
  const take = (input: WordReader, length: number) => {
    const words = input.words.slice(input.position, input.position + length);
    input.position += length;
    return words;
  };
  return (input: WordReader): TlaState => {
    const servers: number[] = [];
    for (let index = 0; index < serverWords; index++) servers.push(input.next());
    const messages = readNumbers(input, input.next());
    const electionCount = input.next();
    const elections: Int32Array[] = [];
    for (let index = 0; index < electionCount; index++) elections.push(take(input, electionWords));
    const allLogs = readNumbers(input, input.next());
    return { servers, messages, elections, allLogs };
  };
}
