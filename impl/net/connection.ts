/**
 * One TCP connection between two nodes, from either end: the handshake (handshake.ts), then
 * authenticated data and control frames both ways. The dialer proves the secret it holds; the
 * acceptor picks the secret it checks by the name the dialer claims (a client's name proves the
 * client secret, any other name the cluster secret). Anything that breaks the protocol (a
 * malformed or oversized frame, a failed proof or MAC, a silent peer during the handshake) is
 * logged and closes this connection only; the transport and its server keep running.
 */
import type { Socket } from 'node:net';
import { encodeFrame, FrameReader } from './frame-reader.js';
import {
  acceptorProof, dataMac, decodeHello, dialerProof, encodeHello, FrameType, macBytes, macsEqual,
  newNonce, nonceBytes, protocolVersion, sessionKeys, transcript, type Channel,
  type Hello,
} from './handshake.js';

export interface ConnectionSettings {
  readonly self: string;
  /** What this end proves when it dials. */
  readonly secret: Uint8Array;
  /** The secret a dialer claiming `name` must prove, with its kind; null: refuse that name. */
  readonly acceptedSecret: (name: string) => { secret: Uint8Array; kind: string } | null;
  readonly maxFrameBytes: number;
  readonly handshakeTimeoutMs: number;
  /** Frames queued while the handshake runs; more are dropped. */
  readonly queuedFramesMax: number;
  /** Bytes the socket may hold unsent; a frame beyond that is dropped (the peer is too slow). */
  readonly unsentBytesMax: number;
  readonly log: (line: string) => void;
}

export interface ConnectionEvents {
  authenticated(connection: Connection): void;
  frame(connection: Connection, payload: Buffer, channel: Channel): void;
  closed(connection: Connection): void;
}

type Phase = 'handshake' | 'open' | 'closed';

/** HELLO, CHALLENGE and AUTH are well under this (names are at most 255 bytes each). */
const handshakeFrameBytesMax = 1024;

export class Connection {
  peer: string | null;
  private phase: Phase = 'handshake';
  private readonly reader: FrameReader;
  private readonly nonce = newNonce();
  private hello: Hello | null = null;
  private secretKind = 'cluster';
  private sendKey: Buffer | null = null;
  private receiveKey: Buffer | null = null;
  private sendCounter = 0;
  private receiveCounter = 0;
  private queued: { payload: Uint8Array; channel: Channel }[] = [];
  /** The secret the acceptor checks, chosen by the dialer's claimed name. */
  private acceptorSecret: Uint8Array | null = null;
  private readonly handshakeTimer: NodeJS.Timeout;

  /** `dialTo`: the peer this end dials (the dialer); null on the accepting end. */
  constructor(
    private readonly socket: Socket,
    private readonly dialTo: string | null,
    private readonly settings: ConnectionSettings,
    private readonly events: ConnectionEvents,
  ) {
    this.peer = dialTo;
    // A stranger gets small frames only, until it has proved a secret.
    this.reader = new FrameReader(Math.min(handshakeFrameBytesMax, settings.maxFrameBytes));
    socket.setNoDelay(true);
    // A peer whose machine vanished without closing the connection is noticed within seconds.
    socket.setKeepAlive(true, 1000);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => this.finish());
    const timeoutMs = settings.handshakeTimeoutMs;
    this.handshakeTimer = setTimeout(() => this.fail('no handshake in time'), timeoutMs);
    if (dialTo !== null) {
      this.hello = { version: protocolVersion, nonce: this.nonce, from: settings.self, to: dialTo };
      const start = () => this.write([encodeHello(this.hello!)]);
      if (socket.connecting) socket.once('connect', start);
      else start();
    }
  }

  get isOpen(): boolean {
    return this.phase === 'open';
  }

  /** Sends (or, during the handshake, queues) a frame; false if it was dropped. */
  send(payload: Uint8Array, channel: Channel = 'data'): boolean {
    if (this.phase === 'closed') return false;
    if (this.phase === 'handshake') {
      if (this.queued.length >= this.settings.queuedFramesMax) return false;
      this.queued.push({ payload: payload.slice(), channel });
      return true;
    }
    if (this.socket.writableLength > this.settings.unsentBytesMax) return false;
    const tag = dataMac(this.sendKey!, this.sendCounter++, payload, channel);
    const type = channel === 'data' ? FrameType.Data : FrameType.Control;
    this.write([Buffer.of(type), tag, payload]);
    return true;
  }

  close(): void {
    this.socket.destroy();
    this.finish();
  }

  /** A method, not a field read: handlers called from the loop above may close the connection. */
  private isClosed(): boolean {
    return this.phase === 'closed';
  }

  private write(parts: Uint8Array[]): void {
    this.socket.write(encodeFrame(parts));
  }

  private receive(chunk: Buffer): void {
    if (this.phase === 'closed') return;
    this.reader.append(chunk);
    // One frame at a time: the handshake raises the frame limit for the frames after it.
    for (;;) {
      let body: Buffer | null;
      try {
        body = this.reader.next();
      } catch (error) {
        return this.fail((error as Error).message);
      }
      if (body === null || this.isClosed()) return;
      if (this.phase === 'open') this.receiveData(body);
      else if (this.dialTo === null) this.acceptHandshake(body);
      else this.dialHandshake(body);
    }
  }

  /** The accepting end: HELLO, then AUTH. */
  private acceptHandshake(body: Buffer): void {
    if (this.hello === null) {
      const hello = decodeHello(body);
      if (hello === null) return this.fail('malformed hello');
      if (hello.version !== protocolVersion) return this.fail(`protocol version ${hello.version}`);
      if (hello.to !== this.settings.self) return this.fail(`hello addressed to ${hello.to}`);
      const accepted = this.settings.acceptedSecret(hello.from);
      if (accepted === null) return this.fail(`${hello.from} is not accepted here`);
      this.hello = hello;
      this.acceptorSecret = accepted.secret;
      this.secretKind = accepted.kind;
      const bytes = transcript(hello, this.nonce);
      const proof = acceptorProof(accepted.secret, bytes);
      this.write([Buffer.of(FrameType.Challenge), this.nonce, proof]);
      return;
    }
    if (body.length !== 1 + macBytes || body[0] !== FrameType.Auth) {
      return this.fail('malformed auth');
    }
    const bytes = transcript(this.hello, this.nonce);
    const secret = this.acceptorSecret!;
    if (!macsEqual(body.subarray(1), dialerProof(secret, bytes))) {
      const kind = this.secretKind;
      return this.fail(`${this.hello.from} failed authentication (wrong ${kind} secret)`);
    }
    const keys = sessionKeys(secret, bytes);
    this.open(this.hello.from, keys.acceptorToDialer, keys.dialerToAcceptor);
  }

  /** The dialing end: CHALLENGE, answered with AUTH. */
  private dialHandshake(body: Buffer): void {
    if (body.length !== 1 + nonceBytes + macBytes || body[0] !== FrameType.Challenge) {
      return this.fail('malformed challenge');
    }
    const acceptorNonce = body.subarray(1, 1 + nonceBytes);
    const bytes = transcript(this.hello!, acceptorNonce);
    if (!macsEqual(body.subarray(1 + nonceBytes), acceptorProof(this.settings.secret, bytes))) {
      return this.fail(`${this.dialTo} failed authentication (wrong secret)`);
    }
    this.write([Buffer.of(FrameType.Auth), dialerProof(this.settings.secret, bytes)]);
    const keys = sessionKeys(this.settings.secret, bytes);
    this.open(this.dialTo!, keys.dialerToAcceptor, keys.acceptorToDialer);
  }

  private open(peer: string, sendKey: Buffer, receiveKey: Buffer): void {
    clearTimeout(this.handshakeTimer);
    this.peer = peer;
    this.sendKey = sendKey;
    this.receiveKey = receiveKey;
    this.phase = 'open';
    this.reader.maxFrameBytes = this.settings.maxFrameBytes;
    const queued = this.queued;
    this.queued = [];
    for (const frame of queued) this.send(frame.payload, frame.channel);
    this.events.authenticated(this);
  }

  private receiveData(body: Buffer): void {
    const type = body[0];
    if (body.length < 1 + macBytes || (type !== FrameType.Data && type !== FrameType.Control)) {
      return this.fail('malformed data frame');
    }
    const channel: Channel = type === FrameType.Data ? 'data' : 'control';
    const payload = body.subarray(1 + macBytes);
    const expected = dataMac(this.receiveKey!, this.receiveCounter++, payload, channel);
    if (!macsEqual(body.subarray(1, 1 + macBytes), expected)) {
      return this.fail(`bad HMAC on a ${channel} frame`);
    }
    this.events.frame(this, payload, channel);
  }

  /** Logs why the connection is dropped and closes it. */
  private fail(reason: string): void {
    if (this.phase === 'closed') return;
    const who = this.peer ?? `${this.socket.remoteAddress}:${this.socket.remotePort}`;
    this.settings.log(`${this.settings.self}: closed the connection with ${who}: ${reason}`);
    this.close();
  }

  private finish(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    clearTimeout(this.handshakeTimer);
    this.queued = [];
    this.events.closed(this);
  }
}
