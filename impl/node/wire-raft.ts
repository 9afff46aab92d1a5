/**
 * A Raft message (spec/raft/types.ts Message) in a frame: a type byte, then its numbers as
 * varints in a fixed order, flags as one byte; an append's entries as their terms, then their
 * commands as one JSON array (parsed in one call); a snapshot's data as JSON. JSON is with
 * maps (json-maps.ts; a command's bytes are the WAL's, encoded once) and preceded by its
 * length. The spec's step function asserts on what it is given, so the decoder builds only
 * well-formed messages: naturals, flags of 0 or 1, whole entries. Commands inside entries are
 * the state machine's to judge (it refuses what it cannot apply).
 */
import type { Message } from '../../spec/raft/types.js';
import { ByteReader, ByteWriter } from '../wal/bytes.js';
import { commandBytes, decodeText, parseWithMaps } from './json-maps.js';

type RaftMessage = Message<unknown, unknown>;

const typeCodes = {
  RequestVoteRequest: 1,
  PreVoteRequest: 2,
  RequestVoteResponse: 3,
  PreVoteResponse: 4,
  AppendEntriesRequest: 5,
  AppendEntriesResponse: 6,
  InstallSnapshotRequest: 7,
  InstallSnapshotResponse: 8,
} as const satisfies Record<RaftMessage['type'], number>;

const typeNames = Object.fromEntries(
  Object.entries(typeCodes).map(([name, code]) => [code, name as RaftMessage['type']]),
) as Record<number, RaftMessage['type']>;

/** Room for a message's numbers and flags: the variable parts are counted on top. */
const fixedBytesMax = 64;

/** The JSON bytes of the message's commands or snapshot (cached per object, json-maps.ts). */
function payloads(message: RaftMessage): Uint8Array[] {
  if (message.type === 'AppendEntriesRequest') {
    return message.entries.map((entry) => commandBytes(entry.command));
  }
  if (message.type === 'InstallSnapshotRequest') return [commandBytes(message.snapshot.data)];
  return [];
}

export function writeRaftMessage(writer: ByteWriter, message: RaftMessage): void {
  writer.u8(typeCodes[message.type]).varint(message.term);
  switch (message.type) {
    case 'RequestVoteRequest':
    case 'PreVoteRequest':
      writer.varint(message.lastLogIndex).varint(message.lastLogTerm);
      return;
    case 'RequestVoteResponse':
    case 'PreVoteResponse':
      writer.u8(message.voteGranted ? 1 : 0);
      return;
    case 'AppendEntriesRequest':
      writer.varint(message.prevLogIndex).varint(message.prevLogTerm)
        .varint(message.leaderCommit).varint(message.readSequence).varint(message.entries.length);
      for (const entry of message.entries) writer.varint(entry.term);
      if (message.entries.length > 0) writeCommands(writer, payloads(message));
      return;
    case 'AppendEntriesResponse':
      writer.u8(message.success ? 1 : 0).varint(message.matchIndex).varint(message.conflictTerm)
        .varint(message.conflictIndex).varint(message.readSequence);
      return;
    case 'InstallSnapshotRequest': {
      const { lastIncludedIndex, lastIncludedTerm, data } = message.snapshot;
      writer.varint(lastIncludedIndex).varint(lastIncludedTerm).sized(commandBytes(data));
      return;
    }
    case 'InstallSnapshotResponse':
      writer.varint(message.matchIndex);
      return;
  }
}

const openBracket = '['.charCodeAt(0);
const comma = ','.charCodeAt(0);
const closeBracket = ']'.charCodeAt(0);

/** The commands' JSON texts as one array: brackets, commas between, sized. */
function writeCommands(writer: ByteWriter, commands: readonly Uint8Array[]): void {
  const textBytes = commands.reduce((sum, bytes) => sum + bytes.length, 0) + commands.length + 1;
  writer.varint(textBytes).u8(openBracket);
  commands.forEach((bytes, position) => {
    if (position > 0) writer.u8(comma);
    writer.bytes(bytes);
  });
  writer.u8(closeBracket);
}

function readCommands(reader: ByteReader, count: number): unknown[] {
  const commands = readJson(reader);
  if (!Array.isArray(commands) || commands.length !== count) {
    throw new RangeError(`not ${count} commands`);
  }
  return commands;
}

/** The bytes a writer needs for the message, so that it never grows. */
export function raftMessageBytes(message: RaftMessage): number {
  return payloads(message).reduce((sum, bytes) => sum + bytes.length + 2 * 8, fixedBytesMax);
}

function readJson(reader: ByteReader): unknown {
  return parseWithMaps(decodeText(reader.sized()));
}

/** The message at the reader; throws on a malformed one (an unknown type, a bad field). */
export function readRaftMessage(reader: ByteReader): RaftMessage {
  const type = typeNames[reader.u8()];
  if (type === undefined) throw new RangeError('not a Raft message type');
  const term = reader.varint();
  switch (type) {
    case 'RequestVoteRequest':
    case 'PreVoteRequest':
      return { type, term, lastLogIndex: reader.varint(), lastLogTerm: reader.varint() };
    case 'RequestVoteResponse':
    case 'PreVoteResponse':
      return { type, term, voteGranted: reader.boolean() };
    case 'AppendEntriesRequest': {
      const prevLogIndex = reader.varint();
      const prevLogTerm = reader.varint();
      const leaderCommit = reader.varint();
      const readSequence = reader.varint();
      const count = reader.varint();
      const terms: number[] = [];
      // Each term takes a byte at least: a lying count ends at the frame's end.
      for (let position = 0; position < count; position++) terms.push(reader.varint());
      const commands = count === 0 ? [] : readCommands(reader, count);
      const entries = terms.map((entryTerm, position) =>
        ({ term: entryTerm, command: commands[position] }));
      return { type, term, prevLogIndex, prevLogTerm, entries, leaderCommit, readSequence };
    }
    case 'AppendEntriesResponse':
      return {
        type, term, success: reader.boolean(), matchIndex: reader.varint(),
        conflictTerm: reader.varint(), conflictIndex: reader.varint(),
        readSequence: reader.varint(),
      };
    case 'InstallSnapshotRequest': {
      const lastIncludedIndex = reader.varint();
      const lastIncludedTerm = reader.varint();
      const data = readJson(reader);
      return { type, term, snapshot: { lastIncludedIndex, lastIncludedTerm, data } };
    }
    case 'InstallSnapshotResponse':
      return { type, term, matchIndex: reader.varint() };
  }
}
