/**
 * A clerk (impl/clerk) on real adapters for one command or test: a client transport named
 * `client-...` proving the client secret (kv), or an admin one proving the cluster secret
 * (ctl, which may join / leave / move). Deadlines are in the clock's milliseconds.
 */
import { randomBytes } from 'node:crypto';
import { Clerk } from '../clerk/clerk.js';
import { clientFrameBytes } from '../node/frame-limits.js';
import type { RequestLimits } from '../node/request-limits.js';
import { clientNamePrefix, dataFrameOverheadBytes, TcpTransport } from '../net/tcp-transport.js';
import { entropySeed } from '../random/entropy-seed.js';
import { SeededRandom } from '../random/seeded-random.js';
import { RealClock, RealTimers } from '../real/real-clock.js';
import { allNodes, layoutOf } from './cluster-file.js';
import type { OpenCluster } from './cluster-nodes.js';
import { readSecrets } from './secrets.js';

export type ClerkRole = 'client' | 'admin';

export interface ClerkSession {
  readonly clerk: Clerk;
  /**
   * Why no node may have answered, from what the transport saw (null: it saw nothing wrong):
   * a handshake refused for a wrong secret, or nodes that could not be reached.
   */
  connectionProblem(): string | null;
  /** The deadline `seconds` from now, in the clerk's clock. */
  deadline(seconds: number): number;
  close(): Promise<void>;
}

/** `limits`: what the clerk checks before sending (default: the cluster's, as nodes check). */
export async function openClerk(
  cluster: OpenCluster, role: ClerkRole, limits: Partial<RequestLimits> = {},
): Promise<ClerkSession> {
  const secrets = readSecrets(cluster.paths);
  const unique = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const name = role === 'client' ? `${clientNamePrefix}${unique}` : `admin-${unique}`;
  const { file } = cluster;
  const problems = new ConnectionProblems(role);
  const peers = Object.fromEntries(allNodes(file).map((node) => [node, file.addresses[node]!]));
  const transport = await TcpTransport.start({
    name, secret: role === 'client' ? secrets.client : secrets.cluster, peers,
    reconnectDelayMsMin: 20, reconnectDelayMsMax: 500, log: (line) => problems.record(line),
    maxFrameBytes: clientFrameBytes(file.settings) + dataFrameOverheadBytes,
  });
  const clock = new RealClock();
  const timers = new RealTimers();
  const clerk = new Clerk({
    transport, timers, clock, random: new SeededRandom(entropySeed()), layout: layoutOf(file),
    maxKeyBytes: limits.maxKeyBytes ?? file.settings.maxKeyBytes,
    maxValueBytes: limits.maxValueBytes ?? file.settings.maxValueBytes,
  });
  return {
    clerk,
    connectionProblem: () => problems.summary(),
    deadline: (seconds) => clock.now() + seconds * 1000,
    close: async () => {
      clerk.close();
      timers.cancelAllTimers();
      await transport.close();
    },
  };
}

/** The transport's log lines (tcp-transport.ts, connection.ts) that explain a silence. */
class ConnectionProblems {
  private readonly unreachable = new Map<string, string>();
  private wrongSecret: string | null = null;

  constructor(private readonly role: ClerkRole) {}

  record(line: string): void {
    const refused = /closed the connection with (\S+): .*wrong secret/.exec(line);
    if (refused !== null) this.wrongSecret = refused[1]!;
    const unreachable = /cannot reach (\S+) \(([^)]+)\)/.exec(line);
    if (unreachable !== null) this.unreachable.set(unreachable[1]!, unreachable[2]!);
  }

  summary(): string | null {
    const secret = this.role === 'client' ? 'client.secret' : 'cluster.secret';
    if (this.wrongSecret !== null) {
      return `${this.wrongSecret} refused the handshake: DIR/${secret} is not this cluster's`;
    }
    if (this.unreachable.size === 0) return null;
    const reached = [...this.unreachable].map(([node, why]) => `${node} (${why})`);
    return `cannot reach ${reached.join(', ')}: is the cluster running? ` +
      '(`shardkv cluster status --dir DIR`; `cluster start --dir DIR --resume` starts a ' +
      'stopped one)';
  }
}
