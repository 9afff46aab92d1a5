/**
 * The `raft` model's steps as sequence-diagram events (checker/diagram.ts): a delivered
 * message is an arrow from its sender to its receiver, a dropped one an arrow that ends in a
 * cross, and the environment's steps (timeouts, heartbeats, client requests, crashes,
 * compactions) notes over their server, followed by a note for every server that became
 * leader or stopped leading in the step. Servers are s1..sN, as in the labels.
 */
import type { DiagramEvent } from '../../checker/diagram.js';
import type { RaftAction } from './model.js';
import type { ModelMessage, RaftModelState } from './model-state.js';
import { serverName, valueName } from './printing.js';

const name = serverName;

/** A message in a few words: its kind, term and what it carries. */
export function messageSummary(message: ModelMessage): string {
  switch (message.type) {
    case 'RequestVoteRequest':
    case 'PreVoteRequest':
      return `${message.type === 'PreVoteRequest' ? 'PreVote' : 'RequestVote'} t${message.term}` +
        ` last ${message.lastLogIndex}/${message.lastLogTerm}`;
    case 'RequestVoteResponse':
    case 'PreVoteResponse':
      return `${message.type === 'PreVoteResponse' ? 'PreVote' : 'Vote'} t${message.term} ` +
        (message.voteGranted ? 'granted' : 'denied');
    case 'AppendEntriesRequest':
      return `AppendEntries t${message.term} prev ${message.prevLogIndex}/` +
        `${message.prevLogTerm} +${message.entries.length} commit ${message.leaderCommit}`;
    case 'AppendEntriesResponse':
      return `AppendEntries t${message.term} ` +
        (message.success ? `ok match ${message.matchIndex}` : `conflict ${message.conflictIndex}`);
    case 'InstallSnapshotRequest':
      return `InstallSnapshot t${message.term} to ${message.snapshot.lastIncludedIndex}`;
    case 'InstallSnapshotResponse':
      return `InstallSnapshot t${message.term} match ${message.matchIndex}`;
  }
}

function actionEvent(before: RaftModelState, action: RaftAction, after: RaftModelState):
  DiagramEvent {
  switch (action.type) {
    case 'Deliver':
    case 'Drop': {
      const { from, to, message } = action.envelope;
      const lost = action.type === 'Drop';
      const text = messageSummary(message);
      return { kind: 'message', from: name(from), to: name(to), text, lost };
    }
    case 'Duplicate': {
      const { from, to, message } = action.envelope;
      return { kind: 'note', over: name(from), text: `duplicate to ${name(to)}: ` +
        messageSummary(message) };
    }
    case 'Heartbeat':
      return { kind: 'note', over: name(action.server), text: `contacts ${name(action.peer)}` };
    case 'ClientRequest':
      return {
        kind: 'note',
        over: name(action.server),
        text: `client proposes ${valueName(action.value)}`,
      };
    case 'ReadIndex':
      return { kind: 'note', over: name(action.server), text: 'client read' };
    case 'Restart':
      return { kind: 'note', over: name(action.server), text: 'crash and restart' };
    case 'Sync': {
      const durable = after.durable[action.server]!;
      const last = (durable.snapshot?.lastIncludedIndex ?? 0) + durable.entries.length;
      return { kind: 'note', over: name(action.server), text: `log durable up to ${last}` };
    }
    case 'CompactLog': {
      const index = after.servers[action.server]!.snapshot?.lastIncludedIndex ?? 0;
      return { kind: 'note', over: name(action.server), text: `snapshot up to ${index}` };
    }
    case 'Timeout': {
      const node = after.servers[action.server]!;
      const was = before.servers[action.server]!;
      const text = node.role === was.role && node.currentTerm === was.currentTerm
        ? 'timeout' : `timeout: ${node.role} t${node.currentTerm}`;
      return { kind: 'note', over: name(action.server), text };
    }
  }
}

export function raftDiagram(
  before: RaftModelState,
  action: RaftAction,
  after: RaftModelState,
): DiagramEvent[] {
  const events = [actionEvent(before, action, after)];
  after.servers.forEach((node, id) => {
    const was = before.servers[id]!;
    if (node.role === 'leader' && (was.role !== 'leader' || was.currentTerm !== node.currentTerm)) {
      events.push({ kind: 'note', over: name(id), text: `leader of term ${node.currentTerm}` });
    } else if (was.role === 'leader' && node.role !== 'leader') {
      events.push({ kind: 'note', over: name(id), text: `steps down (t${node.currentTerm})` });
    }
  });
  return events;
}
