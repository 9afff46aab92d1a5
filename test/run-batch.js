#!/usr/bin/env node
// Runs several small test files in one process, as uvu's own CLI does: each file's tests are
// queued under its name, then all run in order. test/run-files.js batches the files that take
// a second or two, of which tsx's start-up (half a second of CPU per process) is a large part.
// The files share nothing but the process: each makes its own scratch folders, and none
// changes the process's environment, working directory or exit hooks.
// Usage: node --import tsx test/run-batch.js FILE...
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

globalThis.UVU_DEFER = 1;
const uvu = await import('uvu');
for (const [index, file] of process.argv.slice(2).entries()) {
  globalThis.UVU_INDEX = index;
  globalThis.UVU_QUEUE.push([file]);
  await import(pathToFileURL(resolve(file)).href);
}
await uvu.exec();
