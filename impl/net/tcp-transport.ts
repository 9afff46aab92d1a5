/**
 * The real Transport: TCP on the addresses of the cluster file, one outgoing connection per
 * peer (dialed on first use, redialed with exponential backoff after a failure), incoming
 * connections accepted from anyone who completes the handshake with the cluster secret. A node
 * with no listening address (a client) receives its replies on the connections it dialed; a node
 * answers a sender it has no address for (a client) on that sender's own connection.
 *
 * Loss is silent: a frame for an unreachable peer, a peer in backoff, or a peer too slow to
 * drain its socket is dropped, and Raft retries. Only protocol violations are logged. A frame
 * its handler calls malformed closes the connection it came on, as a failed MAC does.
 *
 * Two roles: a dialer named `client-...` proves the client secret, any other the cluster secret
 * (nodes and admin tools), so the name a frame arrives under says which secret its sender holds
 * (`isClientName`): the server refuses join / leave / move from client names. A second stream,
 * control frames (`sendControl` / `onControl`), carries process control (status, fault
 * injection): it is accepted from cluster-secret holders only and is never faulted, so that a
 * node isolated by `cluster isolate` still hears `cluster heal`.
 */
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { assert } from '../../spec/assert.js';
import type { FrameHandler, Transport } from '../io/transport.js';
import { Connection, type ConnectionEvents, type ConnectionSettings } from './connection.js';
import type { Channel } from './handshake.js';
import { NetworkFaultInjector } from './network-faults.js';

/** Names under which a dialer proves the client secret (CONTRACT: clients are not admins). */
export const clientNamePrefix = 'client-';

export function isClientName(name: string): boolean {
  return name.startsWith(clientNamePrefix);
}

export interface Address {
  readonly host: string;
  readonly port: number;
}

export interface TcpTransportOptions {
  readonly name: string;
  /** The secret this node proves when it dials: the client secret for a client name, else the
   * cluster secret (at least 16 bytes). Non-client dialers are checked against it. */
  readonly secret: Uint8Array;
  /** The secret `client-...` dialers must prove; omitted: clients are refused. */
  readonly clientSecret?: Uint8Array;
  /** Where to accept connections; omit for a client. Port 0 picks a free port. */
  readonly listen?: Address;
  readonly peers?: Readonly<Record<string, Address>>;
  /** Largest frame accepted or sent, handshake and MAC included (default 16 MiB). */
  readonly maxFrameBytes?: number;
  readonly handshakeTimeoutMs?: number;
  readonly reconnectDelayMsMin?: number;
  readonly reconnectDelayMsMax?: number;
  readonly incomingConnectionsMax?: number;
  readonly log?: (line: string) => void;
}

/** Bytes a data frame adds to its payload: type and MAC. */
export const dataFrameOverheadBytes = 33;

interface Outgoing {
  connection: Connection | null;
  retryAt: number;
  backoffMs: number;
  /** Whether the failure streak was logged already (one line per streak, not per retry). */
  failureLogged: boolean;
}

export class TcpTransport implements Transport {
  readonly name: string;
  readonly faults = new NetworkFaultInjector();
  private readonly settings: ConnectionSettings;
  private readonly peers = new Map<string, Address>();
  private readonly outgoing = new Map<string, Outgoing>();
  private readonly incoming = new Set<Connection>();
  private readonly delayed = new Set<NodeJS.Timeout>();
  private handler: FrameHandler = () => undefined;
  private controlHandler: FrameHandler = () => undefined;
  private server: Server | null = null;
  private closed = false;
  private readonly options: Required<Pick<TcpTransportOptions,
    'reconnectDelayMsMin' | 'reconnectDelayMsMax' | 'incomingConnectionsMax'>>;

  private constructor(options: TcpTransportOptions) {
    assert(options.secret.length >= 16, 'the cluster secret must have at least 16 bytes');
    assert(options.listen === undefined || !isClientName(options.name), 'a client cannot listen');
    this.name = options.name;
    const { secret, clientSecret } = options;
    this.settings = {
      self: options.name, secret,
      acceptedSecret: (name) => {
        if (!isClientName(name)) return { secret, kind: 'cluster' };
        return clientSecret === undefined ? null : { secret: clientSecret, kind: 'client' };
      },
      maxFrameBytes: options.maxFrameBytes ?? 16 * 2 ** 20,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 5000,
      queuedFramesMax: 1024, unsentBytesMax: 64 * 2 ** 20,
      log: options.log ?? ((line) => console.error(line)),
    };
    this.options = {
      reconnectDelayMsMin: options.reconnectDelayMsMin ?? 50,
      reconnectDelayMsMax: options.reconnectDelayMsMax ?? 2000,
      incomingConnectionsMax: options.incomingConnectionsMax ?? 1024,
    };
    for (const [name, address] of Object.entries(options.peers ?? {})) {
      this.peers.set(name, address);
    }
  }

  /** Creates a transport, listening first if `listen` is given. */
  static async start(options: TcpTransportOptions): Promise<TcpTransport> {
    const transport = new TcpTransport(options);
    if (options.listen !== undefined) await transport.listen(options.listen);
    return transport;
  }

  /** The port this transport accepts connections on, or null for a client. */
  get port(): number | null {
    return (this.server?.address() as AddressInfo | null)?.port ?? null;
  }

  setPeer(name: string, address: Address): void {
    this.peers.set(name, address);
  }

  onFrame(handler: FrameHandler): void {
    this.handler = handler;
  }

  /** Handles control frames, which only cluster-secret holders can send. */
  onControl(handler: FrameHandler): void {
    this.controlHandler = handler;
  }

  send(to: string, frame: Uint8Array): void {
    if (this.closed || !this.fits(to, frame)) return;
    const decision = this.faults.decide();
    if (decision.kind === 'drop') return;
    if (decision.delayMs === 0) return this.transmit(to, frame, 'data');
    const copy = frame.slice();
    this.later(decision.delayMs, () => this.transmit(to, copy, 'data'));
  }

  /** A control frame: never delayed, dropped or cut off by the fault injector. */
  sendControl(to: string, frame: Uint8Array): void {
    if (this.closed || !this.fits(to, frame)) return;
    this.transmit(to, frame, 'control');
  }

  private fits(to: string, frame: Uint8Array): boolean {
    if (frame.length + dataFrameOverheadBytes <= this.settings.maxFrameBytes) return true;
    this.settings.log(`${this.name}: refused to send a frame of ${frame.length} bytes to ${to}`);
    return false;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
    for (const state of this.outgoing.values()) state.connection?.close();
    for (const connection of this.incoming) connection.close();
    const server = this.server;
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listen(address: Address): Promise<void> {
    const server = createServer((socket) => {
      if (this.closed || this.incoming.size >= this.options.incomingConnectionsMax) {
        this.settings.log(`${this.name}: refused a connection (${this.incoming.size} open)`);
        socket.destroy();
        return;
      }
      this.incoming.add(new Connection(socket, null, this.settings, this.incomingEvents));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, address.host, () => resolve());
    });
    server.on('error', (error) => {
      this.settings.log(`${this.name}: server error: ${error.message}`);
    });
    this.server = server;
  }

  /** Runs `action` after `delayMs`, unless the transport closes first. */
  private later(delayMs: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.delayed.delete(timer);
      action();
    }, delayMs);
    this.delayed.add(timer);
  }

  private transmit(to: string, frame: Uint8Array, channel: Channel): void {
    if (this.closed) return;
    const address = this.peers.get(to);
    if (address !== undefined) {
      this.dial(to, address)?.send(frame, channel);
      return;
    }
    // No address: a client that dialed us; answer on its newest open connection.
    let newest: Connection | null = null;
    for (const connection of this.incoming) {
      if (connection.peer === to && connection.isOpen) newest = connection;
    }
    newest?.send(frame, channel);
  }

  /** The connection to a peer, dialing it if none is open or opening; null during backoff. */
  private dial(to: string, address: Address): Connection | null {
    let state = this.outgoing.get(to);
    if (state === undefined) {
      state = { connection: null, retryAt: 0, backoffMs: 0, failureLogged: false };
      this.outgoing.set(to, state);
    }
    if (state.connection !== null) return state.connection;
    if (Date.now() < state.retryAt) return null;
    const socket = connect(address.port, address.host);
    const outgoing = state;
    let opened = false;
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (!outgoing.failureLogged) {
        const why = error.code ?? error.message;
        this.settings.log(`${this.name}: cannot reach ${to} (${why}); retrying`);
        outgoing.failureLogged = true;
      }
    });
    const connection = new Connection(socket, to, this.settings, {
      authenticated: () => {
        opened = true;
        outgoing.backoffMs = 0;
        outgoing.failureLogged = false;
      },
      frame: (from, payload, channel) => this.deliver(from, payload, channel),
      closed: (closedConnection) => {
        if (outgoing.connection === closedConnection) outgoing.connection = null;
        this.scheduleRetry(outgoing, opened);
      },
    });
    state.connection = connection;
    return connection;
  }

  /** After a connection that had opened, retry at once; after a failed one, back off. */
  private scheduleRetry(state: Outgoing, hadOpened: boolean): void {
    const { reconnectDelayMsMin, reconnectDelayMsMax } = this.options;
    const doubled = Math.max(reconnectDelayMsMin, state.backoffMs * 2);
    state.backoffMs = hadOpened ? 0 : Math.min(reconnectDelayMsMax, doubled);
    state.retryAt = Date.now() + state.backoffMs;
  }

  private readonly incomingEvents: ConnectionEvents = {
    authenticated: () => undefined,
    frame: (connection, payload, channel) => this.receive(connection, payload, channel),
    closed: (connection) => this.incoming.delete(connection),
  };

  /** Frames from a peer were faulted at its sender; a client's are faulted here. */
  private receive(connection: Connection, payload: Buffer, channel: Channel): void {
    if (channel === 'control' || this.peers.has(connection.peer!)) {
      return this.deliver(connection, payload, channel);
    }
    const decision = this.faults.decide();
    if (decision.kind === 'drop') return;
    if (decision.delayMs === 0) return this.deliver(connection, payload, channel);
    this.later(decision.delayMs, () => this.deliver(connection, payload, channel));
  }

  private deliver(connection: Connection, payload: Buffer, channel: Channel): void {
    if (this.closed) return;
    const from = connection.peer!;
    if (channel === 'data') {
      if (this.faults.dropsReceived()) return;
      // The handler logged what was wrong; closing says so to the sender.
      if (this.handler(from, payload) === 'malformed') connection.close();
      return;
    }
    if (!isClientName(from)) {
      if (this.controlHandler(from, payload) === 'malformed') connection.close();
      return;
    }
    const why = 'clients are not admins';
    this.settings.log(`${this.name}: refused a control frame from ${from} (${why})`);
  }
}
