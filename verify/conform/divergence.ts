/**
 * What `shardkv conform` reports when a trace does not conform: which check failed, where
 * (node, sequence number, actor), what the spec expected and what the trace recorded, and
 * the few steps of that node before it.
 */

export type ConformCheck = 'replay' | 'shell' | 'invariant' | 'history';

export interface Divergence {
  readonly check: ConformCheck;
  /** What went wrong, in one sentence. */
  readonly what: string;
  readonly node?: string;
  readonly step?: number;
  readonly actor?: string;
  /** The Lamport clock of the record (orders divergences of several nodes). */
  readonly lamport?: number;
  readonly expected?: string;
  readonly recorded?: string;
  /** The node's steps just before, one line each. */
  readonly before?: readonly string[];
}

/** A trace that cannot be read as one (exit 2). */
export class MalformedTraceError extends Error {
  override name = 'MalformedTraceError';
}

/** Steps of context printed before a divergence. */
export const contextSteps = 3;

export function divergenceLines(divergence: Divergence): string[] {
  const actor = divergence.actor === undefined ? '' : ` (${divergence.actor})`;
  const where = divergence.node === undefined ? ''
    : `${divergence.node} step ${divergence.step}${actor}: `;
  const lines = [`divergence (${divergence.check}): ${where}${divergence.what}`];
  if (divergence.expected !== undefined) lines.push(`  expected: ${divergence.expected}`);
  if (divergence.recorded !== undefined) lines.push(`  recorded: ${divergence.recorded}`);
  if (divergence.before !== undefined && divergence.before.length > 0) {
    lines.push('  steps before it:', ...divergence.before.map((line) => `    ${line}`));
  }
  return lines;
}

/** Long values are cut for printing (the JSON output keeps the same cut). */
export const shownCharactersMax = 600;

export function shown(text: string): string {
  return text.length <= shownCharactersMax ? text : `${text.slice(0, shownCharactersMax)}...`;
}
