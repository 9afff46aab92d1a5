/**
 * The JSON text of a Raft step's input and effects, written fast: JSON.stringify with a
 * replacer (needed for ordered maps) is several times slower than without, and only
 * commands and snapshots can hold maps. So commands go through json-maps' commandText (one
 * text per command object, usually already computed for the WAL or the wire), snapshots
 * through stringifyWithMaps, and everything else through plain JSON.stringify. The text
 * parses back (json-maps parseWithMaps) to what stringifyWithMaps would have written.
 */
import type { Effect, Entry, Input, Message } from '../../spec/raft/types.js';
import { commandText, stringifyWithMaps } from '../node/json-maps.js';

type RaftMessage = Message<unknown, unknown>;

function entryText(entry: Entry<unknown> & { readonly index?: number }): string {
  const command = entry.command === null ? 'null' : commandText(entry.command);
  const index = entry.index === undefined ? '' : `"index":${entry.index},`;
  return `{${index}"term":${entry.term},"command":${command}}`;
}

function entriesText(entries: readonly (Entry<unknown> & { readonly index?: number })[]): string {
  return `[${entries.map(entryText).join(',')}]`;
}

/** Most steps are a message in and a send out: their text is built without extra objects. */
export function messageText(message: RaftMessage): string {
  switch (message.type) {
    case 'AppendEntriesRequest':
      return `{"type":"AppendEntriesRequest","term":${message.term},` +
        `"prevLogIndex":${message.prevLogIndex},"prevLogTerm":${message.prevLogTerm},` +
        `"leaderCommit":${message.leaderCommit},"readSequence":${message.readSequence},` +
        `"entries":${entriesText(message.entries)}}`;
    case 'InstallSnapshotRequest':
      return stringifyWithMaps(message);
    default:
      return JSON.stringify(message);
  }
}

const idText = (id: string | null): string => (id === null ? 'null' : JSON.stringify(id));

/** A Raft input; a delivered message also names its id and the sender's clock at sending. */
export function inputText(input: Input<unknown, unknown>, id: string | null,
  sentLamport: number | null): string {
  switch (input.type) {
    case 'message':
      return `{"type":"message","from":${input.from},"id":${idText(id)},` +
        `"sentLamport":${sentLamport},"message":${messageText(input.message)}}`;
    case 'propose':
      return `{"type":"propose","commands":[${input.commands.map(commandText).join(',')}]}`;
    case 'restart':
    case 'snapshot':
      return stringifyWithMaps(input);
    default:
      return JSON.stringify(input);
  }
}

export function effectText(effect: Effect<unknown, unknown>, id: string | null): string {
  switch (effect.type) {
    case 'send':
      return `{"type":"send","to":${effect.to},"id":${idText(id)},` +
        `"message":${messageText(effect.message)}}`;
    case 'saveEntries':
      return `{"type":"saveEntries","fromIndex":${effect.fromIndex},` +
        `"entries":${entriesText(effect.entries)},"sync":"${effect.sync}"}`;
    case 'apply':
      return `{"type":"apply","entries":${entriesText(effect.entries)}}`;
    case 'saveSnapshot':
    case 'restoreSnapshot':
      return stringifyWithMaps(effect);
    default:
      return JSON.stringify(effect);
  }
}
