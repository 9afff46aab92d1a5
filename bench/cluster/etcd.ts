/**
 * The yardstick of `bench:cluster --vs-etcd`: a 3-member etcd on loopback (Debian's
 * etcd-server; fsync on, its default), driven through its JSON gateway (/v3/kv/put and
 * /v3/kv/range, linearizable reads by default) with keep-alive HTTP connections, one per client.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { freePorts, waitFor } from './processes.js';

export interface EtcdCluster {
  readonly endpoints: readonly number[];
  readonly pids: readonly number[];
  stop(): Promise<void>;
}

/** Whether an `etcd` binary is on the PATH. */
export function etcdAvailable(): boolean {
  return spawnSync('etcd', ['--version'], { stdio: 'ignore' }).status === 0;
}

export async function startEtcd(directory: string, members = 3): Promise<EtcdCluster> {
  const ports = await freePorts(members * 2);
  const peerUrl = (member: number) => `http://127.0.0.1:${ports[members + member]}`;
  const initialCluster = Array.from({ length: members }, (_, m) => `m${m}=${peerUrl(m)}`);
  const children: ChildProcess[] = [];
  for (let member = 0; member < members; member++) {
    const clientUrl = `http://127.0.0.1:${ports[member]}`;
    children.push(spawn('etcd', [
      '--name', `m${member}`, '--data-dir', join(directory, `m${member}`),
      '--listen-client-urls', clientUrl, '--advertise-client-urls', clientUrl,
      '--listen-peer-urls', peerUrl(member), '--initial-advertise-peer-urls', peerUrl(member),
      '--initial-cluster', initialCluster.join(','), '--initial-cluster-state', 'new',
      '--initial-cluster-token', 'shardkv-bench', '--log-level', 'error',
    ], { stdio: 'ignore' }));
  }
  const endpoints = ports.slice(0, members);
  const stop = async () => {
    await Promise.all(children.map((child) => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    })));
  };
  try {
    const client = new EtcdClient(endpoints, 1);
    await waitFor(async () => {
      await client.put(0, 'ready', 'yes');
      return true;
    }, 30_000, 'etcd did not become ready');
    client.close();
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoints, pids: children.map((child) => child.pid ?? 0), stop };
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

/** An etcd v3 client over the JSON gateway; client k talks to member k mod members. */
export class EtcdClient {
  private readonly agents: Agent[];

  constructor(private readonly endpoints: readonly number[], clients: number) {
    this.agents = Array.from({ length: clients },
      () => new Agent({ keepAlive: true, maxSockets: 1 }));
  }

  put(client: number, key: string, value: string): Promise<void> {
    return this.call(client, '/v3/kv/put', { key: base64(key), value: base64(value) })
      .then(() => undefined);
  }

  async get(client: number, key: string): Promise<string> {
    const reply = await this.call(client, '/v3/kv/range', { key: base64(key) }) as
      { kvs?: { value?: string }[] };
    const value = reply.kvs?.[0]?.value;
    return value === undefined ? '' : Buffer.from(value, 'base64').toString();
  }

  close(): void {
    for (const agent of this.agents) agent.destroy();
  }

  private call(client: number, path: string, body: object): Promise<unknown> {
    const port = this.endpoints[client % this.endpoints.length]!;
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const outgoing = request({
        host: '127.0.0.1', port, path, method: 'POST', agent: this.agents[client],
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const status = response.statusCode;
          if (status !== 200) reject(new Error(`etcd ${status}: ${text}`));
          else resolve(JSON.parse(text));
        });
      });
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }
}
