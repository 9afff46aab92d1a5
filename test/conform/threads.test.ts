// Issue 23 item 4: conform on threads (verify/conform/stage-thread.ts, the nodes' checks
// spread over 1 or 2 threads, the checks across nodes on the caller's) gives exactly the
// result it gives on one thread: the same verdict, the same first divergence with the same
// message, the same counts; and the same error for input that is not a trace.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { conformThreads, traceInput } from '../../cli/conform.js';
import { conform, type ConformResult } from '../../verify/conform/conform.js';
import { splitNodes } from '../../verify/conform/split-nodes.js';
import { tampered, tracedRun, type TracedRun } from './traced-run.js';

type Row = Record<string, any>;

let run: TracedRun;

test.before(async () => {
  run = await tracedRun(3, { steps: 3_000, faults: 'all' });
});

/** conform's result, or the error it threw, with `threads` threads (0: none). */
function outcome(directory: string, threads: number): ConformResult | string {
  const input = traceInput(directory);
  try {
    return conform(input, undefined, conformThreads(input.paths, threads));
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

/** The outcome on one thread, after checking that 1 and 2 threads give the same. */
function sameOnThreads(directory: string): ConformResult | string {
  const alone = outcome(directory, 0);
  for (const threads of [1, 2]) {
    assert.equal(outcome(directory, threads), alone, `${threads} threads`);
  }
  return alone;
}

/** The first record of the lines that `pick` takes, rewritten by `edit`. */
function editFirst(lines: string[], pick: (record: Row) => boolean,
  edit: (record: Row) => Row): string[] {
  let done = false;
  return lines.map((line) => {
    const record = JSON.parse(line) as Row;
    if (done || !pick(record)) return line;
    done = true;
    return JSON.stringify(edit(record));
  });
}

/** A copy of the run with the first record of `name` that `pick` takes rewritten. */
function edited(name: string, pick: (record: Row) => boolean, edit: (record: Row) => Row) {
  return tampered(run, name, (lines) => editFirst(lines, pick, edit));
}

const digestEdit = (record: Row) => ({ ...record, digest: 'ffffffffffffffff' });

test('a clean run: conforming on threads as on one', () => {
  const result = sameOnThreads(run.directory);
  assert.ok(typeof result !== 'string' && result.divergence === null, String(result));
  assert.ok(typeof result !== 'string' && result.records > 1_000);
});

test('replay divergences in two nodes: the same first one, by Lamport clock', () => {
  const directory = edited('g100-0.jsonl', (record) => record.actor === 'raft' &&
    record.seq >= 400, digestEdit);
  const path = join(directory, 'traces', 'ctl-2.jsonl');
  const lines = readFileSync(path, 'utf8').split('\n').slice(0, -1);
  let lamport = 0;
  writeFileSync(path, editFirst(lines, (record) => record.actor === 'raft' && record.seq >= 40,
    (record) => {
      lamport = record.lamport;
      return digestEdit(record);
    }).join('\n') + '\n');
  const result = sameOnThreads(directory);
  assert.ok(typeof result !== 'string' && result.divergence?.check === 'replay');
  // ctl-2's edit comes first in the merged order: its record has the lower clock.
  assert.is(typeof result !== 'string' && result.divergence?.node, 'ctl-2');
  assert.is(typeof result !== 'string' && result.divergence?.lamport, lamport);
});

test('a delivered message that differs from its send: the same shell divergence', () => {
  const directory = edited('g101-1.jsonl', (record) => record.input?.type === 'message' &&
    record.input.message?.type === 'AppendEntriesRequest',
  (record) => ({ ...record, input: { ...record.input,
    message: { ...record.input.message, term: record.input.message.term + 7 } } }));
  const result = sameOnThreads(directory);
  assert.ok(typeof result !== 'string', String(result));
  assert.match(result.divergence?.what ?? '', /differs from the one sent|differ from the spec/);
});

test('a truncated file: the same malformed-input error', () => {
  const directory = tampered(run, 'g102-2.jsonl', (lines) =>
    [...lines.slice(0, -1), lines.at(-1)!.slice(0, 10)]);
  const result = sameOnThreads(directory);
  assert.is(typeof result, 'string');
  assert.match(result as string, /^MalformedTraceError: /);
});

test('the nodes are split by weight, the heaviest first, each part in name order', () => {
  const weights = new Map([['a', 5], ['b', 4], ['c', 3], ['d', 3], ['e', 1]]);
  assert.equal(splitNodes(['a', 'b', 'c', 'd', 'e'], weights, 2), [['a', 'd'], ['b', 'c', 'e']]);
  assert.equal(splitNodes(['a', 'b'], weights, 3), [['a'], ['b']]);
});

test.run();
