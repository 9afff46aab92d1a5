// Bad input against real processes (CONTRACT: every request is bounded; bad input gets a clear
// error, the server keeps running, and nothing acknowledged is lost): oversized keys and values
// refused with nothing written (from the CLI, from standard input, and from a clerk that skips
// the CLI's check), malformed and unauthenticated frames on a node's port, admin requests on a
// client connection, and garbage appended to a WAL segment before a restart.
import { spawnSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeFrame } from '../../impl/net/frame-reader.js';
import { encodeHello, newNonce, protocolVersion } from '../../impl/net/handshake.js';
import { TcpTransport } from '../../impl/net/tcp-transport.js';
import { readSecrets } from '../../impl/process/secrets.js';
import { eventually, okValue, TestCluster } from './harness.js';

const maxValueBytes = 4096;
let cluster: TestCluster;

test.before(async () => {
  cluster = await TestCluster.start({ groups: 1, servers: 3, controllers: 3, maxValueBytes });
  await cluster.ok('ctl', 'join', '100', '--wait');
  await cluster.ok('kv', 'put', 'kept', 'original');
});

test.after(async () => {
  await cluster?.destroy();
});

const get = async (key: string) =>
  (await cluster.ok<{ value: string }>('kv', 'get', key)).value;
const nodeLog = (name: string) => readFileSync(cluster.cluster.paths.logFile(name), 'utf8');

test('an oversized key or value is refused with exit 1 and nothing is written', async () => {
  const bigValue = await cluster.cli('kv', 'put', 'kept', 'v'.repeat(maxValueBytes + 1), '--json');
  assert.is(bigValue.code, 1);
  assert.match(bigValue.json<{ error: string }>().error,
    `value of ${maxValueBytes + 1} bytes exceeds the limit of ${maxValueBytes} bytes`);
  const bigKey = await cluster.cli('kv', 'append', 'k'.repeat(1025), 'x');
  assert.is(bigKey.code, 1);
  assert.match(bigKey.stderr, 'key of 1025 bytes exceeds the limit of 1024 bytes');
  assert.is(await get('kept'), 'original');
  // A clerk that checks a larger limit than the cluster's: the node refuses the request.
  const session = await cluster.clerk('client', { maxValueBytes: 2 * maxValueBytes });
  const outcome = await session.clerk.put('kept', 'v'.repeat(maxValueBytes + 1),
    session.deadline(10));
  assert.equal(outcome, { status: 'refused', error: `value longer than ${maxValueBytes} bytes` });
  assert.is(await get('kept'), 'original');
});

test('VALUE - reads standard input, within the same limit', () => {
  const child = fileURLToPath(new URL('../helpers/shardkv-child.ts', import.meta.url));
  const run = (input: string, ...argv: string[]) => spawnSync(process.execPath,
    ['--import', 'tsx', child, 'kv', ...argv, '--dir', cluster.directory],
    { input, encoding: 'utf8', timeout: 60_000 });
  const value = 'é'.repeat(2000);
  assert.is(run(value, 'put', 'stdin', '-').status, 0);
  assert.is(run('', 'get', 'stdin').stdout, `${value}\n`);
  const refused = run('z'.repeat(maxValueBytes + 10), 'put', 'stdin', '-');
  assert.is(refused.status, 1);
  assert.match(refused.stderr, 'exceeds the limit of 4096 bytes; nothing was written');
  assert.is(run('', 'get', 'stdin').stdout, `${value}\n`);
});

/** Opens a raw socket to a node and writes `bytes`; resolves when the node closes it. */
function rawSocket(port: number, bytes: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('error', () => undefined);
    // Read what the node answers: a paused socket with unread data never reports 'close'.
    socket.resume();
    socket.on('close', () => resolve());
  });
}

test('malformed and unauthenticated frames are logged; the node keeps serving', async () => {
  const name = 'g100-0';
  const port = cluster.cluster.file.addresses[name]!.port;
  await rawSocket(port, encodeFrame([Buffer.from('GET / HTTP/1.1\r\n\r\n')]));
  const header = Buffer.alloc(4);
  header.writeUInt32BE(2 ** 30);
  await rawSocket(port, header);
  // A stranger claiming to be g100-1, answering the challenge without the cluster secret.
  const hello = { version: protocolVersion, nonce: newNonce(), from: 'g100-1', to: name };
  const forged = Buffer.concat([encodeFrame([encodeHello(hello)]),
    encodeFrame([Buffer.alloc(33, 3)])]);
  await rawSocket(port, forged);
  await eventually('the node to log all three', () => {
    const log = nodeLog(name);
    return log.includes('malformed hello') && log.includes('exceeds the maximum') &&
      log.includes('g100-1 failed authentication (wrong cluster secret)');
  });
  assert.is(await get('kept'), 'original');
  assert.ok((await cluster.status()).every((node) => node.alive));
});

test('a client connection cannot join, leave, move or send process control', async () => {
  const session = await cluster.clerk('client');
  const deadline = () => session.deadline(10);
  const refused = { status: 'refused', error: 'not authorized' };
  assert.equal(await session.clerk.leave([100], deadline()), refused);
  assert.equal(await session.clerk.move(0, 100, deadline()), refused);
  const published = okValue(await session.clerk.query(-1, deadline()), 'query');
  assert.is(published.config.num, 1, 'nothing was recorded');
  const secrets = readSecrets(cluster.cluster.paths);
  const client = await TcpTransport.start({
    name: 'client-raw', secret: secrets.client, log: () => undefined,
    peers: { 'ctl-0': cluster.cluster.file.addresses['ctl-0']! },
  });
  client.sendControl('ctl-0', Buffer.from('{"id":1,"kind":"faults","faults":' +
    '{"unreliable":false,"seed":0,"isolated":true}}'));
  await eventually('the refusal to be logged', () =>
    nodeLog('ctl-0').includes('refused a control frame from client-raw'));
  await client.close();
  assert.is(await get('kept'), 'original');
});

test('garbage appended to a WAL segment is truncated and logged at restart; nothing lost',
  async () => {
    for (let index = 0; index < 5; index++) await cluster.ok('kv', 'append', 'kept', `+${index}`);
    const name = 'g100-2';
    await cluster.kill(name);
    const data = cluster.cluster.paths.dataDirectory(name);
    const segments = readdirSync(data).filter((file) => file.startsWith('wal-')).sort();
    appendFileSync(join(data, segments.at(-1)!), Buffer.from('garbage, not a record'));
    await cluster.restart(name);
    assert.match(nodeLog(name), /wal: truncated .*wal-\d+\.log at offset \d+/);
    await cluster.killAtOnce(cluster.groupServers(100).filter((server) => server !== name));
    for (const server of cluster.groupServers(100)) {
      if (server !== name) await cluster.restart(server);
    }
    assert.is(await get('kept'), 'original+0+1+2+3+4');
  });

test.run();
