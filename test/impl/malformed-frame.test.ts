// A frame that passes the connection's checks (handshake, length, MAC) but decodes to no raft
// message, request or reply (issue 21): a real server on a real TCP port logs one line naming
// the peer and what was wrong, closes that connection, and goes on answering others. The
// simulator's endpoint does the same: the simulated link drops, with what was in flight on it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Clerk } from '../../impl/clerk/clerk.js';
import { encodeFrame } from '../../impl/net/frame-reader.js';
import { dataMac, FrameType } from '../../impl/net/handshake.js';
import { TcpTransport } from '../../impl/net/tcp-transport.js';
import type { ClusterLayout } from '../../impl/node/api.js';
import { encodeControl } from '../../impl/process/control.js';
import { serveControl } from '../../impl/process/control-service.js';
import { createServer } from '../../impl/node/server.js';
import { decodeFrame, encodeFrame as encodeWireFrame } from '../../impl/node/wire.js';
import { NodeFileSystem } from '../../impl/real/node-file-system.js';
import { RealClock, RealTimers } from '../../impl/real/real-clock.js';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { SimulatedNetwork, type NetworkEvent } from '../../impl/sim/simulated-network.js';
import { VirtualClock } from '../../impl/sim/virtual-clock.js';
import { rawPeer, until } from '../helpers/raw-peer.js';
import { SimCluster } from '../node/sim-cluster.js';
import { scratchDirectory } from '../helpers/scratch.js';

const secret = Buffer.from('0123456789abcdef0123456789abcdef');
const layout: ClusterLayout = { shardCount: 4, controllers: ['ctl-0'], groups: {} };
const statusRequest = (id: number) =>
  encodeWireFrame({ kind: 'request', id, body: { type: 'status' } });
const notAFrame = Buffer.from('{"kind":"request","id":1,"body":{"type":"launch"}}');
const malformedLine = new RegExp(
  `^ctl-0: closed the connection with (\\S+): a malformed frame of ${notAFrame.length} bytes`);

/** A controller server on a real TCP port, its control frames served as a node process's. */
async function startedServer() {
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);
  const transport = await TcpTransport.start({
    name: 'ctl-0', secret, listen: { host: '127.0.0.1', port: 0 }, log,
  });
  const server = createServer({
    name: 'ctl-0', layout, isAdmin: () => true,
    environment: {
      transport, fileSystem: new NodeFileSystem(), directory: scratchDirectory('malformed-'),
      clock: new RealClock(), timers: new RealTimers(), random: new SeededRandom(1), log,
    },
  });
  serveControl(transport, server, log);
  await server.start();
  return { logs, log, transport, server };
}

test('over TCP: one line naming the peer, that connection closed, the next one answered',
  async () => {
    const { logs, log, transport, server } = await startedServer();
    try {
      const peer = await rawPeer(transport.port!, 'admin-raw', 'ctl-0', secret);
      assert.ok(peer.proofValid);
      const mac = dataMac(peer.keys!.dialerToAcceptor, 0, notAFrame);
      peer.socket.write(encodeFrame([Buffer.of(FrameType.Data), mac, notAFrame]));
      await until(peer.isClosed, 'the node to close the connection');
      const lines = logs.filter((line) => line.includes('admin-raw'));
      assert.is(lines.length, 1, lines.join('\n'));
      assert.match(lines[0]!, malformedLine);
      assert.is(malformedLine.exec(lines[0]!)![1], 'admin-raw');

      const admin = await TcpTransport.start({
        name: 'admin-1', secret, log,
        peers: { 'ctl-0': { host: '127.0.0.1', port: transport.port! } },
      });
      const replies: string[] = [];
      admin.onFrame((_from, bytes) => {
        const frame = decodeFrame(bytes);
        if (frame?.kind === 'reply') replies.push(`${frame.id}:${frame.body.type}`);
      });
      await until(() => replies.length > 0, 'a status reply', () => {
        admin.send('ctl-0', statusRequest(7));
      });
      assert.is(replies[0], '7:status');
      await admin.close();
    } finally {
      await server.stop();
      await transport.close();
    }
  });

test('a malformed control frame: one line, that connection closed, the next one answered',
  async () => {
    const { logs, log, transport, server } = await startedServer();
    try {
      const peer = await rawPeer(transport.port!, 'admin-raw', 'ctl-0', secret);
      const mac = dataMac(peer.keys!.dialerToAcceptor, 0, notAFrame, 'control');
      peer.socket.write(encodeFrame([Buffer.of(FrameType.Control), mac, notAFrame]));
      await until(peer.isClosed, 'the node to close the connection');
      const lines = logs.filter((line) => line.includes('admin-raw'));
      assert.equal(lines, [`ctl-0: closed the connection with admin-raw: a malformed control ` +
        `frame of ${notAFrame.length} bytes`]);

      const admin = await TcpTransport.start({
        name: 'admin-1', secret, log,
        peers: { 'ctl-0': { host: '127.0.0.1', port: transport.port! } },
      });
      const replies: number[] = [];
      admin.onControl((_from, bytes) => {
        replies.push(JSON.parse(Buffer.from(bytes).toString()).id);
      });
      await until(() => replies.length > 0, 'a control reply', () => {
        admin.sendControl('ctl-0', encodeControl({ id: 9, kind: 'status' }));
      });
      assert.is(replies[0], 9);
      await admin.close();
    } finally {
      await server.stop();
      await transport.close();
    }
  });

test('in the simulator: the link drops, losing what was in flight either way', () => {
  const clock = new VirtualClock();
  const events: NetworkEvent[] = [];
  const network = new SimulatedNetwork(clock, new SeededRandom(1),
    { delayMsMin: 5, delayMsMax: 5 }, (event) => events.push(event));
  const node = network.endpoint('ctl-0');
  const peer = network.endpoint('admin-raw');
  const other = network.endpoint('admin-1');
  const received: string[] = [];
  node.onFrame((from, frame) => {
    received.push(`${from}:${frame[0]}`);
    return frame[0] === 0 ? 'malformed' : undefined;
  });
  peer.onFrame((from, frame) => {
    received.push(`${from}->admin-raw:${frame[0]}`);
  });
  peer.send('ctl-0', Uint8Array.of(0)); // arrives at 5 and drops the link
  clock.runUntil(1);
  peer.send('ctl-0', Uint8Array.of(1)); // in flight at 5: lost
  node.send('admin-raw', Uint8Array.of(2)); // the other way: lost too
  other.send('ctl-0', Uint8Array.of(3)); // another link: delivered
  clock.runUntil(6);
  peer.send('ctl-0', Uint8Array.of(4)); // a new connection: delivered
  clock.runUntil(20);
  assert.equal(received, ['admin-raw:0', 'admin-1:3', 'admin-raw:4']);
  const drops = events.flatMap((event) =>
    (event.kind === 'drop' ? [`${event.from}->${event.to}:${event.reason}`] : []));
  assert.equal(drops, ['admin-raw->ctl-0:disconnected', 'ctl-0->admin-raw:disconnected']);
});

test('a clerk: a reply that decodes to nothing drops its link', () => {
  const clock = new VirtualClock();
  const events: NetworkEvent[] = [];
  const network = new SimulatedNetwork(clock, new SeededRandom(1),
    { delayMsMin: 5, delayMsMax: 5 }, (event) => events.push(event));
  void new Clerk({
    transport: network.endpoint('client-1'), timers: clock.timers(), clock,
    random: new SeededRandom(2), layout,
  });
  const server = network.endpoint('ctl-0');
  server.send('client-1', notAFrame); // arrives at 5 and drops the link
  clock.runUntil(1);
  server.send('client-1', statusRequest(1)); // in flight at 5: lost
  clock.runUntil(10);
  const drops = events.flatMap((event) =>
    (event.kind === 'drop' ? [`${event.from}->${event.to}:${event.reason}`] : []));
  assert.equal(drops, ['ctl-0->client-1:disconnected']);
});

test('a simulated server: one line, the link dropped, the next request answered', async () => {
  const cluster = new SimCluster({ seed: 3, layout, faults: { delayMsMin: 5, delayMsMax: 5 } });
  await cluster.start('ctl-0');
  const peer = cluster.network.endpoint('admin-raw');
  const replies: number[] = [];
  peer.onFrame((_from, bytes) => {
    const frame = decodeFrame(bytes);
    if (frame?.kind === 'reply') replies.push(frame.id);
  });
  const logged = cluster.logs.length;
  peer.send('ctl-0', notAFrame);
  await cluster.run(1);
  peer.send('ctl-0', statusRequest(1)); // in flight when the link drops: lost
  await cluster.run(20);
  peer.send('ctl-0', statusRequest(2));
  await cluster.run(20);
  assert.equal(replies, [2]);
  const lines = cluster.logs.slice(logged).map((line) => line.replace(/^\d+ /, ''));
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, malformedLine);
});

test.run();
