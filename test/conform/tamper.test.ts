// Issue 14 item 3: a traced run that conforms, then one edit at a time; each edit gives exit
// 1 and names the first divergence it made (node, step, the check that caught it), and a
// trace that is not a trace gives exit 2 with one line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';
import { tampered, tracedRun, type TracedRun } from './traced-run.js';

interface Divergence {
  check: string; node?: string; step?: number; actor?: string; what: string;
  expected?: string; recorded?: string;
}

type Row = Record<string, any>;

let run: TracedRun;

test.before(async () => {
  run = await tracedRun(3, { steps: 3_000, faults: 'all' });
});

async function divergenceOf(directory: string): Promise<Divergence> {
  const result = await runCli('conform', directory, '--json');
  assert.is(result.code, 1, result.stderr);
  const summary = result.json<{ ok: boolean; divergence: Divergence }>();
  assert.is(summary.ok, false);
  return summary.divergence;
}

const parse = (line: string): Row => JSON.parse(line) as Row;

test('the untouched run conforms, given DIR or DIR/traces', async () => {
  assert.is((await runCli('conform', run.directory)).code, 0);
  assert.is((await runCli('conform', join(run.directory, 'traces'))).code, 0);
});

test('one edited digest: a replay divergence at that step', async () => {
  let edited = 0;
  const directory = tampered(run, 'g100-0.jsonl', (lines) => lines.map((line) => {
    const record = parse(line);
    if (record.actor !== 'raft' || record.seq < 20 || edited > 0) return line;
    edited = record.seq;
    return JSON.stringify({ ...record, digest: 'ffffffffffffffff' });
  }));
  const divergence = await divergenceOf(directory);
  assert.equal(divergence, {
    ...divergence, check: 'replay', node: 'g100-0', step: edited, actor: 'raft',
    what: 'the state digest differs', recorded: 'ffffffffffffffff',
  });
});

test('a reordered pair of steps: the first of the pair diverges', async () => {
  let first = 0;
  const directory = tampered(run, 'g101-1.jsonl', (lines) => {
    const records = lines.map(parse);
    // Two appends in a row (the first one's `synced` record between them), the first news
    // to the follower (it saved its entries), the second continuing it: swapped, the second
    // arrives before the entries it follows and the follower must refuse it.
    const saves = (record: Row) =>
      record.effects.some((effect: Row) => effect.type === 'saveEntries');
    const continues = (a: Row, b: Row | undefined) => b !== undefined && saves(a) &&
      [a, b].every((record) => record.actor === 'raft' && record.input.type === 'message' &&
        record.input.message.type === 'AppendEntriesRequest') &&
      b.input.message.prevLogIndex ===
        a.input.message.prevLogIndex + a.input.message.entries.length;
    const at = records.findIndex((record, index) => continues(record, records[index + 2]));
    assert.ok(at >= 0, 'two appends in a row');
    const [a, b] = [records[at]!, records[at + 2]!];
    first = a.seq;
    // The shell ran them in the other order: inputs, effects and digests swap places.
    const swap = (x: Row, y: Row) =>
      ({ ...x, input: y.input, effects: y.effects, digest: y.digest });
    records[at] = swap(a, b);
    records[at + 2] = swap(b, a);
    return records.map((record) => JSON.stringify(record));
  });
  const divergence = await divergenceOf(directory);
  assert.is(divergence.check, 'replay');
  assert.is(divergence.node, 'g101-1');
  assert.is(divergence.step, first);
  assert.is(divergence.actor, 'raft');
  assert.is(divergence.what, 'the effects differ from the spec\'s');
  assert.match(divergence.expected!, /"success":false/);
  assert.match(divergence.recorded!, /"success":true/);
});

test('a dropped persist: a message left before the step that sent it was synced', async () => {
  let dropped = { step: 0, receivers: [] as string[] };
  const directory = tampered(run, 'g100-1.jsonl', (lines) => {
    const records = lines.map(parse);
    const peers: string[] = records[0]!.setup.peers;
    // A vote: its saveHardState must be durable before the RequestVoteResponse leaves.
    const at = records.findIndex((record, index) => record.actor === 'shell' &&
      records[index - 1]?.effects.some((effect: Row) => effect.type === 'send' &&
        effect.message.type === 'RequestVoteResponse'));
    assert.ok(at > 0, 'a synced vote');
    const step = records[at - 1]!;
    dropped = { step: step.seq, receivers: step.effects.filter((effect: Row) =>
      effect.type === 'send').map((effect: Row) => peers[effect.to]!) };
    // Later records keep a gapless numbering, so only the shell check can notice.
    return records.filter((_, index) => index !== at).map((record) => JSON.stringify(
      record.seq < records[at]!.seq ? record : {
        ...record, seq: record.seq - 1,
        ...(record.actor === 'shell' && record.input.step > dropped.step
          ? { input: { ...record.input, step: record.input.step - 1 } } : {}),
      }));
  });
  const divergence = await divergenceOf(directory);
  assert.is(divergence.check, 'shell');
  assert.ok(dropped.receivers.includes(divergence.node!), `${divergence.node} received it`);
  assert.match(divergence.what,
    new RegExp(`left g100-1 before the persist of its step ${dropped.step} was synced`));
});

test('the honest run uses both optimisations the sync duties allow (it conforms, above)', () => {
  let earlySend = 0;
  let lazyCommit = 0;
  for (const lines of run.result.traces!.values()) {
    const records = lines.map(parse);
    records.forEach((record, index) => {
      if (record.actor !== 'raft') return;
      const duties = record.effects.map((effect: Row) => effect.sync).filter(Boolean);
      if (duties.length > 0 && duties.every((duty: string) => duty === 'withNext')) lazyCommit++;
      if (!duties.includes('thenReport') || duties.includes('beforeSends')) return;
      // dissertation §10.2.1: an AppendEntries leaves before the sync covering the append.
      const covered = records.findIndex((later: Row, at: number) => at > index &&
        later.actor === 'shell' && later.input.step >= record.seq);
      const sentBefore = records.slice(index + 1, covered).some((later: Row) =>
        later.actor === 'raft' && later.effects.some((effect: Row) => effect.type === 'send' &&
          effect.message.type === 'AppendEntriesRequest' && effect.message.entries.length > 0));
      if (sentBefore) earlySend++;
    });
  }
  assert.ok(earlySend > 0, 'a leader sent its append before it was durable');
  assert.ok(lazyCommit > 0, 'a commitIndex-only hard state waited for no sync');
});

test('a leader that counted its own undurable append toward a commit is rejected', async () => {
  let moved = { node: '', step: 0 };
  for (const [node, lines] of run.result.traces!) {
    if (moved.step > 0) break;
    const records = lines.map(parse);
    // The storage's report of a leader's append, stepped right after its sync, that lets the
    // leader count its copy toward a commit (it commits then or with a later reply)...
    const at = records.findIndex((record: Row, index: number) => record.actor === 'raft' &&
      record.input.type === 'logDurable' && records[index - 1]?.actor === 'shell' &&
      record.digest !== records[index - 2]?.digest);
    if (at < 0) continue;
    moved = { node: records[at]!.node, step: records[at - 1]!.seq };
    // ...stepped before the sync completed: the two records swap places (and numbers).
    const directory = tampered(run, `${node}.jsonl`, () => {
      const [synced, report] = [records[at - 1]!, records[at]!];
      const swapped = records.slice();
      swapped[at - 1] = { ...report, seq: synced.seq, lamport: synced.lamport };
      swapped[at] = { ...synced, seq: report.seq, lamport: report.lamport };
      return swapped.map((record) => JSON.stringify(record));
    });
    const divergence = await divergenceOf(directory);
    assert.equal(divergence, { ...divergence, check: 'shell', node: moved.node,
      step: moved.step });
    assert.match(divergence.what, /reported entry \d+ \(term \d+\) durable before a sync/);
  }
  assert.ok(moved.step > 0, 'some leader committed on its own report');
});

test('a delivered message that was never sent', async () => {
  let step = 0;
  const directory = tampered(run, 'g102-2.jsonl', (lines) => lines.map((line) => {
    const record = parse(line);
    if (step > 0 || record.actor !== 'raft' || record.input.type !== 'message') return line;
    step = record.seq;
    return JSON.stringify({ ...record, input: { ...record.input, id: 'g102-0:1:999999' } });
  }));
  const divergence = await divergenceOf(directory);
  assert.is(divergence.check, 'shell');
  assert.is(divergence.node, 'g102-2');
  assert.is(divergence.step, step);
  assert.is(divergence.what, 'delivered message g102-0:1:999999 was never sent');
});

/** The first delivered message of `type` in the run (a successful one), changed by `edit`. */
function editedDelivery(type: string, edit: (message: Row) => Row) {
  const delivers = (record: Row) => record.actor === 'raft' && record.input.type === 'message' &&
    record.input.message.type === type && record.input.message.success !== false;
  const node = [...run.result.traces!.keys()].sort().find((name) =>
    run.result.traces!.get(name)!.some((line) => delivers(parse(line))));
  assert.ok(node !== undefined, `some node received a ${type}`);
  let step = 0;
  const directory = tampered(run, `${node}.jsonl`, (lines) => lines.map((line) => {
    const record = parse(line);
    if (step > 0 || !delivers(record)) return line;
    step = record.seq;
    return JSON.stringify({ ...record, input: { ...record.input,
      message: edit(record.input.message) } });
  }));
  return { directory, node, step };
}

test('a delivered message with its fields in another order conforms', async () => {
  const { directory } = editedDelivery('AppendEntriesResponse', (message) =>
    Object.fromEntries(Object.entries(message).reverse()));
  const result = await runCli('conform', directory);
  assert.is(result.code, 0, result.stdout + result.stderr);
});

test('a delivered message that differs from its send where the step ignores it', async () => {
  // A successful append's conflict hint is read by nobody: only the link check can see it.
  const { directory, node, step } = editedDelivery('AppendEntriesResponse', (message) =>
    ({ ...message, conflictIndex: 7777 }));
  const divergence = await divergenceOf(directory);
  assert.equal(divergence, { ...divergence, check: 'shell', node, step });
  assert.match(divergence.what, /^message \S+ differs from the one sent$/);
  assert.match(divergence.recorded!, /"conflictIndex":7777/);
});

test('a history with one changed read is not linearizable', async () => {
  let key = '';
  const directory = tampered(run, 'history.jsonl', (lines) => lines.map((line) => {
    const operation = parse(line);
    if (key !== '' || operation.op !== 'get' || !operation.output) return line;
    key = operation.key;
    return JSON.stringify({ ...operation, output: `${operation.output}<tampered>` });
  }));
  assert.ok(key !== '', 'a read that returned a value');
  const divergence = await divergenceOf(directory);
  assert.is(divergence.check, 'history');
  assert.is(divergence.what, `the history is not-linearizable on key ${JSON.stringify(key)}`);
});

test('malformed input exits 2 with one line', async () => {
  const cut = tampered(run, 'ctl-0.jsonl', (lines) => [lines[0]!, lines[1]!.slice(0, 40)]);
  const cutRun = await runCli('conform', cut);
  assert.is(cutRun.code, 2);
  assert.match(cutRun.stderr, /^shardkv conform: ctl-0\.jsonl line 2: not JSON/);
  assert.not.match(cutRun.stderr, /\n/);
  const version = tampered(run, 'ctl-1.jsonl', (lines) =>
    [JSON.stringify({ ...parse(lines[0]!), v: 2 }), ...lines.slice(1)]);
  const versionRun = await runCli('conform', version, '--json');
  assert.is(versionRun.code, 2);
  assert.equal(versionRun.json(), {
    ok: false, error: 'shardkv conform: ctl-1.jsonl line 1: schema version 2, expected 1',
  });
  const empty = scratchDirectory('shardkv-empty-');
  mkdirSync(join(empty, 'traces'));
  assert.is((await runCli('conform', empty)).code, 2);
  assert.is((await runCli('conform', join(empty, 'missing'))).code, 2);
});

test.run();
