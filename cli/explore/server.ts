/**
 * The explorer's HTTP server (node:http): the page at `/`, a path's view at
 * `/api/view?path=0.3.1`, and the checker's BFS at `/api/violation`. It listens on loopback
 * by default and then answers only requests addressed to a loopback name (a web page
 * elsewhere cannot reach it through DNS rebinding).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { explorerPage } from './page.js';
import { ExploreSession, parsePath, PathError } from './session.js';

export interface ExploreServer {
  readonly url: string;
  close(): Promise<void>;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': `${type}; charset=utf-8`,
    'cache-control': 'no-store' });
  response.end(body);
}

const sendJson = (response: ServerResponse, status: number, value: unknown) =>
  send(response, status, 'application/json', JSON.stringify(value));

function hostName(request: IncomingMessage): string {
  return (request.headers.host ?? '').replace(/:\d+$/, '');
}

export async function startExploreServer(
  session: ExploreSession, title: string, host: string, port: number,
): Promise<ExploreServer> {
  const page = explorerPage(title);
  const loopbackOnly = loopbackHosts.has(host);
  const server = createServer((request, response) => {
    if (loopbackOnly && !loopbackHosts.has(hostName(request))) {
      return sendJson(response, 403, { error: 'the explorer answers loopback names only' });
    }
    const url = new URL(request.url ?? '/', 'http://explorer');
    try {
      if (request.method !== 'GET') return sendJson(response, 405, { error: 'GET only' });
      if (url.pathname === '/') return send(response, 200, 'text/html', page);
      if (url.pathname === '/api/view') {
        return sendJson(response, 200, session.view(parsePath(url.searchParams.get('path') ?? '0')));
      }
      if (url.pathname === '/api/violation') {
        return sendJson(response, 200, session.shortestViolation());
      }
      return sendJson(response, 404, { error: `no page ${url.pathname}` });
    } catch (error) {
      if (error instanceof PathError) return sendJson(response, 400, { error: error.message });
      // The model itself threw: say so on the page rather than drop the connection.
      return sendJson(response, 500, { error: `the model failed: ${String(error)}` });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
