/** Free loopback ports for a new cluster: each bound by the OS (port 0), then released. */
import { createServer, type AddressInfo, type Server } from 'node:net';

export async function freePorts(host: string, count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    // All held at once, so the OS cannot hand out one port twice.
    for (let index = 0; index < count; index++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, host, () => resolve());
      });
    }
    return servers.map((server) => (server.address() as AddressInfo).port);
  } finally {
    await Promise.all(
      servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  }
}
