#!/usr/bin/env node
// The installed command: runs the compiled CLI (built by `npm ci` through the prepare script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('shardkv: dist/ is missing; run `npm run build` (npm ci does it)\n');
  process.exit(2);
}
// A reader that stopped reading (`shardkv models | head -1`) closed the pipe: stop quietly,
// as the tools it is piped with do, instead of an unhandled EPIPE's stack trace.
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
