/** The last lines of a node's log file: what a failed start or restart reports. */
import { readFileSync } from 'node:fs';
import type { ClusterPaths } from './paths.js';

export function logTail(paths: ClusterPaths, name: string, lines = 1): string {
  try {
    const text = readFileSync(paths.logFile(name), 'utf8').trimEnd();
    return text.split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
