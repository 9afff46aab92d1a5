/**
 * `shardkv kv get|put|append --dir DIR KEY [VALUE]` (CONTRACT): one operation through a clerk
 * on a client connection (client.secret: no admin rights), retried through leader changes and
 * reconfigurations until `--timeout`. VALUE `-` reads standard input. A key or value over the
 * cluster's limits is refused before anything is sent (the nodes refuse it too).
 */
import { UsageError } from '../checker/params.js';
import { openCluster, type OpenCluster } from '../impl/process/cluster-nodes.js';
import { appendHistory, monotonicMicroseconds } from '../impl/process/history-file.js';
import { openClerk } from '../impl/process/clerk-session.js';
import { utf8Length } from '../impl/node/request-limits.js';
import type { Outcome } from '../impl/node/api.js';
import { positiveNumberFlag, type FlagSpec, type ParsedArgs } from './args.js';
import {
  dirFlag, dispatch, failed, helpFlag, jsonFlag, requireDir, type Subcommand,
} from './cluster-common.js';
import { exitOk, type Io } from './io.js';

export const timeoutFlag: FlagSpec = {
  name: 'timeout', kind: 'value', valueName: 'SECONDS',
  description: 'give up (exit 1) after this long (default 10)',
};
const flags = [dirFlag, timeoutFlag, jsonFlag, helpFlag];

/**
 * Standard input as the value: up to `limitBytes` + 1 bytes (one more tells "too large", which
 * sizeRefusal reports). Values are text: bytes that are not UTF-8 are refused (exit 2) rather
 * than stored altered (each bad byte would become U+FFFD).
 */
async function readStandardInput(limitBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    total += (chunk as Buffer).length;
    if (total > limitBytes) break;
  }
  process.stdin.destroy();
  const bytes = Buffer.concat(chunks, total);
  if (total > limitBytes) return bytes.toString('utf8');
  return decodeText(bytes);
}

export function decodeText(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const offset = firstInvalidByte(bytes);
    throw new UsageError(`standard input is not UTF-8 text (byte 0x` +
      `${bytes[offset]!.toString(16).padStart(2, '0')} at offset ${offset}); values are text, ` +
      `so encode binary data first (e.g. base64)`);
  }
}

/**
 * The offset of the first byte that cannot start or continue UTF-8 (binary search: a prefix
 * decodes in streaming mode until that byte, whatever follows; a sequence cut short by the
 * end of input gives the last byte).
 */
function firstInvalidByte(bytes: Uint8Array): number {
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, middle), { stream: true });
      low = middle;
    } catch {
      high = middle - 1;
    }
  }
  return Math.min(low, bytes.length - 1);
}

/** Why this key/value pair is over the cluster's limits, or null. */
function sizeRefusal(
  key: string, value: string, limits: { maxKeyBytes: number; maxValueBytes: number },
): string | null {
  const keyBytes = utf8Length(key);
  if (keyBytes > limits.maxKeyBytes) {
    return `key of ${keyBytes} bytes exceeds the limit of ${limits.maxKeyBytes} bytes`;
  }
  const valueBytes = utf8Length(value);
  if (valueBytes > limits.maxValueBytes) {
    return `value of ${valueBytes} bytes exceeds the limit of ${limits.maxValueBytes} bytes`;
  }
  return null;
}

/** The group's refusal in words (spec/group/size-policy.ts refuses a value grown too large). */
function refusalText(error: string, maxValueBytes: number): string {
  if (error !== 'value-too-large') return error;
  return `the value would exceed the limit of ${maxValueBytes} bytes; nothing was written`;
}

function operands(args: ParsedArgs, count: number): string[] {
  if (args.positionals.length !== count) {
    const what = count === 1 ? 'KEY' : 'KEY VALUE';
    throw new UsageError(`expected ${what}, got ${args.positionals.length} arguments`);
  }
  return [...args.positionals];
}

async function operate(
  args: ParsedArgs, io: Io, op: 'get' | 'put' | 'append',
): Promise<number> {
  const [key, given] = operands(args, op === 'get' ? 1 : 2) as [string, string | undefined];
  const timeoutSeconds = positiveNumberFlag(args, 'timeout') ?? 10;
  const cluster = openCluster(requireDir(args));
  const limits = cluster.file.settings;
  const value = given === '-' ? await readStandardInput(limits.maxValueBytes) : given ?? '';
  const refusal = sizeRefusal(key, value, limits);
  if (refusal !== null) {
    return failed(`shardkv kv ${op}: ${refusal}; nothing was written`, args, io);
  }
  const session = await openClerk(cluster, 'client');
  let outcome: Outcome<string | void>;
  let problem: string | null;
  const call = monotonicMicroseconds();
  try {
    const deadline = session.deadline(timeoutSeconds);
    outcome = op === 'get'
      ? await session.clerk.get(key, deadline)
      : await session.clerk[op](key, value, deadline);
  } finally {
    problem = session.connectionProblem();
    await session.close();
  }
  if (cluster.file.settings.trace) recordOperation(cluster, op, key, value, call, outcome);
  const why = problem === null ? '' : ` (${problem})`;
  if (outcome.status === 'refused') {
    const reason = refusalText(outcome.error, limits.maxValueBytes);
    return failed(`shardkv kv ${op}: ${reason}${why}`, args, io);
  }
  if (outcome.status === 'unknown') {
    const effect = op === 'get' ? '' : `; the ${op} may or may not have taken effect`;
    return failed(`shardkv kv ${op}: no answer within ${timeoutSeconds} s${why}${effect}`,
      args, io);
  }
  const json = args.booleans.has('json');
  if (op === 'get') {
    io.stdout(json ? JSON.stringify({ ok: true, value: outcome.value }) : String(outcome.value));
  } else if (json) io.stdout(JSON.stringify({ ok: true }));
  return exitOk;
}

/** With `cluster start --trace`: the operation joins DIR/traces/history.jsonl. */
function recordOperation(
  cluster: OpenCluster, op: 'get' | 'put' | 'append', key: string, value: string,
  call: number, outcome: Outcome<string | void>,
): void {
  if (outcome.status === 'refused') return;
  const returned = monotonicMicroseconds();
  const client = `kv-${process.pid}-${call}`;
  appendHistory(cluster.paths, {
    client, op, key, ...(op === 'get' ? {} : { value }), call,
    ...(outcome.status === 'unknown' ? { outcome: 'unknown' as const }
      : { return: returned, ...(op === 'get' ? { output: String(outcome.value) } : {}) }),
  });
}

const subcommands: Readonly<Record<string, Subcommand>> = {
  get: {
    usage: 'shardkv kv get --dir DIR KEY [--timeout SECONDS] [--json]',
    summary: 'print the value of KEY ("" for a missing key)',
    flags, run: (args, io) => operate(args, io, 'get'),
  },
  put: {
    usage: 'shardkv kv put --dir DIR KEY VALUE [--timeout SECONDS] [--json]',
    summary: 'set KEY to VALUE (`-`: read it from standard input); keys up to 1,024 bytes,\n' +
      'values up to the cluster\'s --max-value-bytes (default 1 MiB)',
    flags, run: (args, io) => operate(args, io, 'put'),
  },
  append: {
    usage: 'shardkv kv append --dir DIR KEY VALUE [--timeout SECONDS] [--json]',
    summary: 'append VALUE (`-`: standard input) to the value of KEY',
    flags, run: (args, io) => operate(args, io, 'append'),
  },
};

export function kvCommand(argv: readonly string[], io: Io): Promise<number> {
  return dispatch('kv', subcommands, argv, io);
}
