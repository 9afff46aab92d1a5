/**
 * A temporary folder for one test file, removed when the process exits, whether the tests
 * passed or failed (`exit` is the one sure hook, however many test files share the process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function scratchDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  process.on('exit', () => rmSync(directory, { recursive: true, force: true }));
  return directory;
}
