/**
 * `shardkv ctl join|leave|move|query --dir DIR ...` (CONTRACT): the shard controller, through
 * a clerk on an admin connection (cluster.secret). join / leave / move return once the new
 * configuration is recorded, with `--wait` once it is published. Malformed arguments exit 2;
 * a request the controller refuses (or a gid `cluster start` did not create) exits 1 and
 * records nothing.
 */
import { UsageError } from '../checker/params.js';
import type { Config } from '../spec/controller/index.js';
import type { Outcome, PublishedConfig } from '../impl/node/api.js';
import { openCluster, type OpenCluster } from '../impl/process/cluster-nodes.js';
import { openClerk, type ClerkSession } from '../impl/process/clerk-session.js';
import { positiveNumberFlag, type ParsedArgs } from './args.js';
import {
  dirFlag, dispatch, failed, helpFlag, jsonFlag, requireDir, type Subcommand,
} from './cluster-common.js';
import { exitOk, type Io } from './io.js';
import { timeoutFlag } from './kv.js';

const waitFlag = {
  name: 'wait', kind: 'boolean' as const,
  description: 'return once the configuration is published (every moved shard installed)',
};

function integerOperand(text: string, what: string): number {
  if (!/^\d+$/.test(text)) {
    throw new UsageError(`${what} must be a non-negative integer: '${text}'`);
  }
  return Number(text);
}

function gidsOf(args: ParsedArgs): number[] {
  if (args.positionals.length === 0) throw new UsageError('expected at least one GID');
  return args.positionals.map((text) => integerOperand(text, 'GID'));
}

/** A gid `cluster start` did not create: the request is refused (exit 1), nothing recorded. */
function unknownGid(cluster: OpenCluster, gids: readonly number[]): string | null {
  const unknown = gids.find((gid) => cluster.file.groups[gid] === undefined);
  if (unknown === undefined) return null;
  const created = Object.keys(cluster.file.groups).join(', ');
  return `gid ${unknown} was not created by cluster start (groups: ${created})`;
}

/** CONTRACT's query object: {"num","shards","groups","published"}. */
function configJson(config: Config, published: boolean) {
  return { num: config.num, shards: config.shards, groups: config.groups, published };
}

function configText(config: Config, published: boolean): string {
  const groups = Object.entries(config.groups)
    .map(([gid, servers]) => `  ${gid}: ${servers.join(' ')}`);
  return [`configuration ${config.num} (${published ? 'published' : 'not yet published'})`,
    `  shards: ${config.shards.join(' ')}`, ...groups].join('\n');
}

async function withClerk(
  args: ParsedArgs, io: Io, name: string, gids: readonly number[],
  action: (session: ClerkSession, deadline: number) => Promise<Outcome<PublishedConfig>>,
): Promise<number> {
  const timeoutSeconds = positiveNumberFlag(args, 'timeout') ?? 10;
  const cluster = openCluster(requireDir(args));
  const unknown = unknownGid(cluster, gids);
  if (unknown !== null) return failed(`shardkv ctl ${name}: ${unknown}`, args, io);
  const session = await openClerk(cluster, 'admin');
  let outcome: Outcome<PublishedConfig>;
  let problem: string | null;
  try {
    outcome = await action(session, session.deadline(timeoutSeconds));
  } finally {
    problem = session.connectionProblem();
    await session.close();
  }
  if (outcome.status !== 'ok') {
    const why = problem === null ? '' : ` (${problem})`;
    const reason = outcome.status === 'unknown'
      ? `no answer within ${timeoutSeconds} s (${outcome.error})${why}` : outcome.error + why;
    return failed(`shardkv ctl ${name}: ${reason}`, args, io);
  }
  const { config, published } = outcome.value;
  io.stdout(args.booleans.has('json')
    ? JSON.stringify({ ok: true, ...configJson(config, published) })
    : configText(config, published));
  return exitOk;
}

/** Records a change, then (with --wait) polls until it is published. */
function change(
  args: ParsedArgs, io: Io, name: string, gids: readonly number[],
  request: (session: ClerkSession, deadline: number) => Promise<Outcome<Config>>,
): Promise<number> {
  return withClerk(args, io, name, gids, async (session, deadline) => {
    const recorded = await request(session, deadline);
    if (recorded.status !== 'ok') return recorded;
    const num = recorded.value.num;
    if (args.booleans.has('wait')) return session.clerk.waitPublished(num, deadline);
    return session.clerk.query(recorded.value.num, deadline);
  });
}

function join(args: ParsedArgs, io: Io): Promise<number> {
  const gids = gidsOf(args);
  const { file } = openCluster(requireDir(args));
  // A configuration's server list for a group is its node names in order (CONTRACT).
  const groups = Object.fromEntries(gids.map((gid) => [gid, file.groups[gid] ?? []]));
  return change(args, io, 'join', gids, (session, deadline) =>
    session.clerk.join(groups, deadline));
}

function leave(args: ParsedArgs, io: Io): Promise<number> {
  const gids = gidsOf(args);
  return change(args, io, 'leave', gids, (session, deadline) =>
    session.clerk.leave(gids, deadline));
}

function move(args: ParsedArgs, io: Io): Promise<number> {
  if (args.positionals.length !== 2) throw new UsageError('expected SHARD GID');
  const shard = integerOperand(args.positionals[0]!, 'SHARD');
  const gid = integerOperand(args.positionals[1]!, 'GID');
  const shards = openCluster(requireDir(args)).file.shardCount;
  if (shard >= shards) {
    return Promise.resolve(
      failed(`shardkv ctl move: shard ${shard} is out of range 0..${shards - 1}`, args, io));
  }
  return change(args, io, 'move', [gid], (session, deadline) =>
    session.clerk.move(shard, gid, deadline));
}

function query(args: ParsedArgs, io: Io): Promise<number> {
  if (args.positionals.length > 1) throw new UsageError('expected at most one NUM');
  const text = args.positionals[0];
  const num = text === undefined ? -1 : integerOperand(text, 'NUM');
  return withClerk(args, io, 'query', [], async (session, deadline) => {
    const outcome = await session.clerk.query(num, deadline);
    // The controller answers the latest for a NUM past it (as the MIT lab's Query does): a
    // NUM the user named that is not recorded is refused here instead.
    if (num === -1 || outcome.status !== 'ok' || outcome.value.config.num === num) return outcome;
    const latest = outcome.value.config.num;
    return { status: 'refused', error: `no configuration ${num} is recorded (the latest is ` +
      `${latest})` };
  });
}

const changeFlags = [dirFlag, waitFlag, timeoutFlag, jsonFlag, helpFlag];

const subcommands: Readonly<Record<string, Subcommand>> = {
  join: {
    usage: 'shardkv ctl join --dir DIR GID... [--wait] [--timeout SECONDS] [--json]',
    summary: 'add groups (created by cluster start) in one new configuration',
    flags: changeFlags, run: join,
  },
  leave: {
    usage: 'shardkv ctl leave --dir DIR GID... [--wait] [--timeout SECONDS] [--json]',
    summary: 'remove groups in one new configuration; their shards move to the others',
    flags: changeFlags, run: leave,
  },
  move: {
    usage: 'shardkv ctl move --dir DIR SHARD GID [--wait] [--timeout SECONDS] [--json]',
    summary: 'give SHARD to GID (no new configuration if it already has it)',
    flags: changeFlags, run: move,
  },
  query: {
    usage: 'shardkv ctl query --dir DIR [NUM] [--timeout SECONDS] [--json]',
    summary: 'configuration NUM (default: the latest recorded), with "published"',
    flags: [dirFlag, timeoutFlag, jsonFlag, helpFlag], run: query,
  },
};

export function ctlCommand(argv: readonly string[], io: Io): Promise<number> {
  return dispatch('ctl', subcommands, argv, io);
}
