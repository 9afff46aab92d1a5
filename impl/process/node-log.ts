/** What a failed start or restart reports: the node's last fatal line, else its last line. */
import { readFileSync } from 'node:fs';
import type { ClusterPaths } from './paths.js';

export function logTail(paths: ClusterPaths, name: string): string {
  let lines: string[];
  try {
    lines = readFileSync(paths.logFile(name), 'utf8').trimEnd().split('\n');
  } catch {
    return '(no log)';
  }
  const fatal = lines.filter((line) => line.includes(' fatal: ')).at(-1);
  return (fatal ?? lines.at(-1) ?? '(empty log)') + ` (${paths.logFile(name)})`;
}
