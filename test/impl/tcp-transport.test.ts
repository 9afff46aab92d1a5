// The TCP transport on 127.0.0.1 with real sockets: framing, authentication with the cluster
// secret, protocol violations that close one connection while the server keeps serving,
// reconnection, and CONTRACT's unreliable / isolate fault injection.
import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeFrame } from '../../impl/net/frame-reader.js';
import { dataMac, FrameType } from '../../impl/net/handshake.js';
import { NetworkFaultInjector } from '../../impl/net/network-faults.js';
import { TcpTransport, type TcpTransportOptions } from '../../impl/net/tcp-transport.js';
import { rawPeer, until } from '../helpers/raw-peer.js';

const secret = Buffer.from('0123456789abcdef0123456789abcdef');
const clientSecret = Buffer.from('the client secret, not the cluster one');
const localhost = { host: '127.0.0.1', port: 0 };
const open: TcpTransport[] = [];
const logs: string[] = [];

test.after.each(async () => {
  await Promise.all(open.splice(0).map((transport) => transport.close()));
  logs.length = 0;
});

async function start(name: string, options: Partial<TcpTransportOptions> = {}) {
  const transport = await TcpTransport.start({
    name, secret, listen: localhost, log: (line) => logs.push(line), reconnectDelayMsMax: 100,
    ...options,
  });
  open.push(transport);
  const received: string[] = [];
  transport.onFrame((from, frame) => {
    received.push(`${from}:${Buffer.from(frame).toString()}`);
  });
  return { transport, received };
}

function link(...transports: TcpTransport[]) {
  for (const from of transports) {
    for (const to of transports) {
      if (from !== to) from.setPeer(to.name, { ...localhost, port: to.port! });
    }
  }
}

const text = (value: string) => Buffer.from(value);

test('frames round trip between named nodes, in order per link, large ones too', async () => {
  const a = await start('a');
  const b = await start('b');
  const c = await start('c');
  link(a.transport, b.transport, c.transport);
  for (let index = 0; index < 50; index++) {
    a.transport.send('b', text(`x${index}`));
    c.transport.send('b', text(`y${index}`));
  }
  b.transport.send('a', text('reply'));
  const large = Buffer.alloc(2 ** 20, 7);
  c.transport.send('a', large);
  await until(() => b.received.length === 100 && a.received.length === 2, 'deliveries');
  const from = (prefix: string) => b.received.filter((line) => line.startsWith(prefix));
  assert.equal(from('a:'), Array.from({ length: 50 }, (_, index) => `a:x${index}`));
  assert.equal(from('c:'), Array.from({ length: 50 }, (_, index) => `c:y${index}`));
  assert.ok(a.received.includes('b:reply'));
  assert.is(a.received.find((line) => line.startsWith('c:'))!.length, 2 + 2 ** 20);
  assert.equal(logs, []);
});

test('a client without a listening port gets replies on the connection it dialed', async () => {
  const server = await start('g100-0', { clientSecret });
  const client = await start('client-7', { listen: undefined, secret: clientSecret });
  client.transport.setPeer('g100-0', { ...localhost, port: server.transport.port! });
  assert.is(client.transport.port, null);
  server.transport.onFrame((from, frame) => {
    server.transport.send(from, Buffer.concat([text('echo '), frame]));
  });
  client.transport.send('g100-0', text('get k'));
  await until(() => client.received.length === 1, 'the reply');
  assert.equal(client.received, ['g100-0:echo get k']);
});

/** A plain socket to `port`, and whether the other side has closed it. */
function rawSocket(port: number): { socket: Socket; closed: () => boolean } {
  const socket = connect(port, '127.0.0.1');
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  return { socket, closed: () => closed };
}

test('a data frame with a bad HMAC is dropped and logged; the server keeps serving', async () => {
  const a = await start('a');
  const b = await start('b');
  link(a.transport, b.transport);
  const intruder = await rawPeer(a.transport.port!, 'b', 'a', secret);
  assert.ok(intruder.proofValid);
  const good = text('valid');
  const goodMac = dataMac(intruder.keys!.dialerToAcceptor, 0, good);
  intruder.socket.write(encodeFrame([Buffer.of(FrameType.Data), goodMac, good]));
  const forged = text('forged');
  const wrongMac = dataMac(intruder.keys!.dialerToAcceptor, 5, forged);
  intruder.socket.write(encodeFrame([Buffer.of(FrameType.Data), wrongMac, forged]));
  await until(intruder.isClosed, 'the server to close the connection');
  assert.equal(a.received, ['b:valid']);
  assert.is(logs.length, 1);
  assert.match(logs[0]!, /^a: closed the connection with b: bad HMAC on a data frame$/);
  b.transport.send('a', text('still served'));
  await until(() => a.received.length === 2, 'a frame after the bad one');
  assert.equal(a.received, ['b:valid', 'b:still served']);
});

test('a stranger without the secret fails the handshake and is logged', async () => {
  const a = await start('a');
  const wrongSecret = Buffer.from('not the cluster secret!');
  const stranger = await rawPeer(a.transport.port!, 'b', 'a', wrongSecret);
  assert.not.ok(stranger.proofValid, 'the stranger cannot check the server either');
  await until(stranger.isClosed, 'the server to close the connection');
  assert.match(logs.join('\n'), 'a: closed the connection with 127.0.0.1');
  assert.match(logs.join('\n'), 'b failed authentication (wrong cluster secret)');
  assert.equal(a.received, []);
});

test('an oversized frame is dropped, logged, its connection closed; serving goes on', async () => {
  const a = await start('a', { maxFrameBytes: 4096 });
  const b = await start('b');
  link(a.transport, b.transport);
  const { socket, closed } = rawSocket(a.transport.port!);
  const header = Buffer.alloc(4);
  header.writeUInt32BE(4097);
  socket.write(Buffer.concat([header, Buffer.alloc(100)]));
  await until(closed, 'the server to close the connection');
  assert.match(logs[0]!, 'frame of 4097 bytes exceeds the maximum of 1024');
  b.transport.send('a', text('after'));
  await until(() => a.received.length === 1, 'a frame after the oversized one');
  a.transport.send('b', Buffer.alloc(5000));
  assert.match(logs.at(-1)!, 'a: refused to send a frame of 5000 bytes to b');
});

test('garbage for a hello is logged, closing only its connection', async () => {
  const a = await start('a');
  const b = await start('b');
  link(a.transport, b.transport);
  const { socket, closed } = rawSocket(a.transport.port!);
  socket.write(encodeFrame([Buffer.from('GET / HTTP/1.1')]));
  await until(closed, 'the server to close the connection');
  assert.match(logs[0]!, /^a: closed the connection with 127\.0\.0\.1:\d+: malformed hello$/);
  b.transport.send('a', text('after'));
  await until(() => a.received.length === 1, 'a frame after the malformed one');
});

test('after the peer restarts on its port, the sender reconnects', async () => {
  const a = await start('a');
  const b = await start('b');
  link(a.transport, b.transport);
  a.transport.send('b', text('before'));
  await until(() => b.received.length === 1, 'the first frame');
  const port = b.transport.port!;
  await b.transport.close();
  a.transport.send('b', text('lost while b is down'));
  const restarted = await start('b', { listen: { host: '127.0.0.1', port } });
  let attempt = 0;
  await until(() => restarted.received.length > 0, 'a frame after the restart', () => {
    a.transport.send('b', text(`retry ${attempt++}`));
  });
  assert.match(restarted.received[0]!, /^a:retry \d+$/);
});

test('unreliable: the seeded decisions drop ~10% and delay the rest by 0-26 ms', async () => {
  const a = await start('a');
  const b = await start('b');
  link(a.transport, b.transport);
  a.transport.faults.setUnreliable(true, 9);
  // The same seed in a fresh injector predicts every decision the transport will make.
  const oracle = new NetworkFaultInjector();
  oracle.setUnreliable(true, 9);
  const expected: string[] = [];
  for (let index = 0; index < 200; index++) {
    if (oracle.decide().kind === 'deliver') expected.push(`a:${index}`);
    a.transport.send('b', text(String(index)));
  }
  assert.ok(expected.length >= 160 && expected.length <= 195, `${expected.length} predicted`);
  await until(() => b.received.length === expected.length, 'the frames not dropped');
  assert.equal([...b.received].sort(), [...expected].sort());
  assert.not.equal(b.received, expected, 'random delays reorder frames');
  a.transport.faults.setUnreliable(false);
  a.transport.send('b', text('reliable again'));
  await until(() => b.received.at(-1) === 'a:reliable again', 'a reliable frame');
});

test('isolate cuts a node off both ways; heal restores it', async () => {
  const a = await start('a');
  const b = await start('b');
  link(a.transport, b.transport);
  a.transport.send('b', text('connect first'));
  await until(() => b.received.length === 1, 'the first frame');
  b.transport.faults.isolated = true;
  a.transport.send('b', text('to the isolated'));
  b.transport.send('a', text('from the isolated'));
  await until(() => b.transport.faults.droppedFrames === 2, 'both frames to be dropped');
  b.transport.faults.isolated = false;
  b.transport.send('a', text('healed'));
  a.transport.send('b', text('healed too'));
  await until(() => a.received.length === 1 && b.received.length === 2, 'frames after heal');
  assert.equal(a.received, ['b:healed']);
  assert.equal(b.received, ['a:connect first', 'a:healed too']);
});


test('a client name proves the client secret; it cannot pass as a node with it', async () => {
  const server = await start('g100-0', { clientSecret });
  server.transport.onFrame((from, frame) => server.transport.send(from, frame));
  const client = await start('client-1', { listen: undefined, secret: clientSecret });
  client.transport.setPeer('g100-0', { ...localhost, port: server.transport.port! });
  client.transport.send('g100-0', text('hello'));
  await until(() => client.received.length === 1, 'the echo');
  assert.equal(client.received, ['g100-0:hello']);
  const impostor = await rawPeer(server.transport.port!, 'g100-1', 'g100-0', clientSecret);
  assert.not.ok(impostor.proofValid);
  await until(impostor.isClosed, 'the server to refuse the impostor');
  assert.match(logs.join('\n'), 'g100-1 failed authentication (wrong cluster secret)');
  const wrongClient = await rawPeer(server.transport.port!, 'client-2', 'g100-0', secret);
  await until(wrongClient.isClosed, 'the server to refuse a client with the cluster secret');
  assert.match(logs.join('\n'), 'client-2 failed authentication (wrong client secret)');
});

test('without a client secret, client names are refused', async () => {
  const server = await start('a');
  const client = await rawPeer(server.transport.port!, 'client-1', 'a', secret);
  await until(client.isClosed, 'the server to refuse the client');
  assert.match(logs.join('\n'), 'client-1 is not accepted here');
});

test('control frames pass isolation and unreliability; clients cannot send them', async () => {
  const node = await start('g100-0', { clientSecret });
  const control: string[] = [];
  node.transport.onControl((from, frame) => {
    control.push(`${from}:${Buffer.from(frame).toString()}`);
    node.transport.sendControl(from, text('done'));
  });
  node.transport.faults.isolated = true;
  node.transport.faults.setUnreliable(true, 1);
  const admin = await start('admin-1', { listen: undefined });
  const adminControl: string[] = [];
  admin.transport.onControl((from, frame) => { adminControl.push(`${from}:${frame}`); });
  admin.transport.setPeer('g100-0', { ...localhost, port: node.transport.port! });
  for (let index = 0; index < 20; index++) admin.transport.sendControl('g100-0', text('heal'));
  await until(() => adminControl.length === 20, 'every control reply');
  assert.is(control.length, 20);
  assert.is(node.received.length, 0);
  const client = await start('client-1', { listen: undefined, secret: clientSecret });
  client.transport.setPeer('g100-0', { ...localhost, port: node.transport.port! });
  client.transport.sendControl('g100-0', text('heal'));
  await until(() => logs.some((line) => line.includes('refused a control frame')), 'refusal');
  assert.is(control.length, 20);
  assert.match(logs.join('\n'), 'g100-0: refused a control frame from client-1');
});

test('a data frame relabelled as control fails its MAC', async () => {
  const a = await start('a');
  const intruder = await rawPeer(a.transport.port!, 'b', 'a', secret);
  const payload = text('status');
  const mac = dataMac(intruder.keys!.dialerToAcceptor, 0, payload);
  intruder.socket.write(encodeFrame([Buffer.of(FrameType.Control), mac, payload]));
  await until(intruder.isClosed, 'the server to close the connection');
  assert.match(logs.join('\n'), 'bad HMAC on a control frame');
});

test.run();
