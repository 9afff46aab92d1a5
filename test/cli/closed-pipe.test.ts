// A reader that closes the pipe early (`shardkv models | head -1`) ends the command quietly:
// exit 0 and nothing on stderr, not an unhandled EPIPE with its stack trace.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const binary = join(process.cwd(), 'bin', 'shardkv.js');

test('shardkv models writing into a pipe its reader has closed', async () => {
  const child = spawn(process.execPath, [binary, 'models'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
  // Close our end before the command writes, as `head -1` has done by its second line.
  child.stdout.destroy();
  const code = await new Promise((resolve) => child.on('close', (status) => resolve(status)));
  assert.is(stderr, '');
  assert.is(code, 0);
});

test.run();
