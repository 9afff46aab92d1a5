// How /proc's view of a pid is read (impl/process/pids.ts): a process without a command line is
// between exec and its arguments or exiting, so it still counts as the node's; a zombie, a
// kernel thread and another program do not.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classifyProcess } from '../../impl/process/pids.js';

const ownStat = readFileSync('/proc/self/stat', 'utf8');
const withState = (stat: string, state: string, flags?: number) => {
  const head = stat.slice(0, stat.lastIndexOf(')') + 2);
  const fields = stat.slice(head.length).split(' ');
  fields[0] = state;
  if (flags !== undefined) fields[6] = String(flags);
  return head + fields.join(' ');
};
const nodeArgv = ['node', 'node-main.js', '--dir', '/d', '--node', 'g100-0'];
const isNode = (argv: readonly string[]) => argv.includes('--node') && argv.includes('g100-0');

test('a running process is the node when its command line names it, else another', () => {
  assert.is(classifyProcess(ownStat, nodeArgv.join('\0') + '\0', isNode), 'node');
  assert.is(classifyProcess(ownStat, 'sleep\x0010\0', isNode), 'other');
});

test('no command line: changing (exec or exit under way), unless a kernel thread', () => {
  assert.is(classifyProcess(withState(ownStat, 'R'), '', isNode), 'changing');
  assert.is(classifyProcess(withState(ownStat, 'D'), '', isNode), 'changing');
  // kthreadd's flags on Linux 6: PF_KTHREAD (0x200000) among others.
  assert.is(classifyProcess(withState(ownStat, 'S', 0x208040), '', isNode), 'other');
});

test('a zombie or a dead task is never the node, whatever its command line', () => {
  for (const state of ['Z', 'X']) {
    assert.is(classifyProcess(withState(ownStat, state), nodeArgv.join('\0'), isNode), 'other');
    assert.is(classifyProcess(withState(ownStat, state), '', isNode), 'other');
  }
});

test('a command name with spaces and parentheses does not shift the fields', () => {
  const stat = ownStat.replace(/\(.*\)/, '(a) b (c)');
  assert.is(classifyProcess(withState(stat, 'Z'), '', isNode), 'other');
  assert.is(classifyProcess(withState(stat, 'S'), '', isNode), 'changing');
});

test.run();
