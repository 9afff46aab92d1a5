/**
 * The admin side of process control: a transport named `admin-...` that proves the cluster
 * secret and asks nodes for their status or sets their fault injection (control.ts). A node
 * that does not answer within the timeout is reported as null (dead, or not yet listening).
 */
import { randomBytes } from 'node:crypto';
import { TcpTransport } from '../net/tcp-transport.js';
import { allNodes, type ClusterFile } from './cluster-file.js';
import {
  decodeControlReply, encodeControl, type ControlReply, type FaultSettings,
} from './control.js';

export class AdminClient {
  private nextId = 1;
  private readonly pending = new Map<number, (reply: ControlReply) => void>();

  private constructor(private readonly transport: TcpTransport) {
    transport.onControl((_from, frame) => {
      const reply = decodeControlReply(frame);
      if (reply !== null) this.pending.get(reply.id)?.(reply);
    });
  }

  static async open(file: ClusterFile, clusterSecret: Uint8Array): Promise<AdminClient> {
    const name = `admin-${process.pid}-${randomBytes(4).toString('hex')}`;
    const peers = Object.fromEntries(allNodes(file).map((node) => [node, file.addresses[node]!]));
    const transport = await TcpTransport.start({
      name, secret: clusterSecret, peers, handshakeTimeoutMs: 2000,
      reconnectDelayMsMin: 20, reconnectDelayMsMax: 200, log: () => undefined,
    });
    return new AdminClient(transport);
  }

  status(node: string, timeoutMs: number): Promise<ControlReply | null> {
    return this.request(node, (id) => ({ id, kind: 'status' }), timeoutMs);
  }

  setFaults(node: string, faults: FaultSettings, timeoutMs: number): Promise<ControlReply | null> {
    return this.request(node, (id) => ({ id, kind: 'faults', faults }), timeoutMs);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /** Sends the request every 200 ms (a connection may still be opening) until a reply. */
  private request(
    node: string,
    build: (id: number) => Parameters<typeof encodeControl>[0],
    timeoutMs: number,
  ): Promise<ControlReply | null> {
    const id = this.nextId++;
    const frame = encodeControl(build(id));
    return new Promise((resolve) => {
      const finish = (reply: ControlReply | null) => {
        clearTimeout(deadline);
        clearInterval(resend);
        this.pending.delete(id);
        resolve(reply);
      };
      const deadline = setTimeout(() => finish(null), timeoutMs);
      const resend = setInterval(() => this.transport.sendControl(node, frame), 200);
      this.pending.set(id, finish);
      this.transport.sendControl(node, frame);
    });
  }
}
