// The real disk's file handles (impl/real/node-file-system.ts): a WAL segment (opened to
// append) is opened with O_DSYNC, so each write is durable when it returns and its sync has
// nothing left to do; a file opened to truncate is not, and its sync is an fdatasync. What the
// flags are is read from /proc, as the kernel holds them.
import { constants, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from
  'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NodeFileSystem } from '../../impl/real/node-file-system.js';

const root = mkdtempSync(join(tmpdir(), 'shardkv-node-fs-'));
const fileSystem = new NodeFileSystem();

test.after(() => rmSync(root, { recursive: true, force: true }));

/** The open flags of this process's descriptor of `path` (from /proc/self/fdinfo). */
function openFlags(path: string): number {
  for (const fd of readdirSync('/proc/self/fd')) {
    let target = '';
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed meanwhile (the listing's own descriptor)
    }
    if (target !== path) continue;
    const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    return parseInt(/^flags:\s*([0-7]+)/m.exec(info)![1]!, 8);
  }
  throw new Error(`${path} is not open`);
}

test('a segment opened to append writes durably (O_DSYNC), truncates and reads back', async () => {
  const path = join(root, 'wal-1.log');
  const handle = await fileSystem.open(path, 'append');
  assert.is(openFlags(path) & constants.O_DSYNC, constants.O_DSYNC, 'O_DSYNC');
  assert.is(openFlags(path) & constants.O_APPEND, constants.O_APPEND, 'O_APPEND');
  await handle.append(Uint8Array.of(1, 2, 3));
  await handle.append(Uint8Array.of(4));
  await handle.sync();
  await handle.truncate(2);
  await handle.sync();
  await handle.append(Uint8Array.of(9));
  await handle.close();
  assert.equal([...readFileSync(path)], [1, 2, 9]);
});

test('appendBlocking writes at the end before it returns, between awaited appends', async () => {
  const path = join(root, 'wal-2.log');
  const handle = await fileSystem.open(path, 'append');
  await handle.append(Uint8Array.of(1, 2));
  handle.appendBlocking!(Uint8Array.of(3, 4, 5));
  assert.equal([...readFileSync(path)], [1, 2, 3, 4, 5], 'on disk when it returns');
  await handle.append(Uint8Array.of(6));
  await handle.sync();
  await handle.close();
  assert.equal([...readFileSync(path)], [1, 2, 3, 4, 5, 6]);
});

test('a file opened to truncate (a snapshot being written) is no O_DSYNC file', async () => {
  const path = join(root, 'snapshot.tmp');
  const handle = await fileSystem.open(path, 'truncate');
  assert.is(openFlags(path) & constants.O_DSYNC, 0);
  await handle.append(Uint8Array.of(7, 8));
  await handle.sync();
  await handle.close();
  assert.equal([...readFileSync(path)], [7, 8]);
});

test.run();
