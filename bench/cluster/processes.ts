/** Small helpers for benchmarks that run servers: free loopback ports, polling. */
import { createServer, type AddressInfo } from 'node:net';

/** `count` distinct ports free on 127.0.0.1 right now (held open together, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, () =>
    new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    })));
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** Polls `ready` every 100 ms until it returns true; throws `message` after `timeoutMs`. */
export async function waitFor(
  ready: () => Promise<boolean>,
  timeoutMs: number,
  message: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      if (await ready()) return;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${message}${last instanceof Error ? `: ${last.message}` : ''}`);
}
