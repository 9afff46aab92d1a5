/**
 * What a failed start or restart reports (the node's last fatal line, else its last line), and
 * why a dead node is down (`cluster status`: its fatal line since it last started).
 */
import { readFileSync } from 'node:fs';
import type { ClusterPaths } from './paths.js';

function logLines(paths: ClusterPaths, name: string): string[] | null {
  try {
    return readFileSync(paths.logFile(name), 'utf8').trimEnd().split('\n');
  } catch {
    return null;
  }
}

export function logTail(paths: ClusterPaths, name: string): string {
  const lines = logLines(paths, name);
  if (lines === null) return '(no log)';
  const fatal = lines.filter((line) => line.includes(' fatal: ')).at(-1);
  return (fatal ?? lines.at(-1) ?? '(empty log)') + ` (${paths.logFile(name)})`;
}

/** The reason in the node's last fatal line since its last start, or null (none, or killed). */
export function fatalReason(paths: ClusterPaths, name: string): string | null {
  const lines = logLines(paths, name) ?? [];
  let fatal: string | null = null;
  // The last start is the last 'listening' line; only a fatal line after it counts.
  for (const line of lines) {
    if (line.includes(': listening on port ')) fatal = null;
    else if (line.includes(' fatal: ')) fatal = line.slice(line.indexOf(' fatal: ') + 8);
  }
  return fatal;
}
