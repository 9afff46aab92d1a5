// A leader proposes a client request once however often the clerk retries it
// (spec/group/retry-admission.ts, issue 27): retries wait for the entry in the log.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { admitRequest, type ClientRequest } from '../../spec/group/index.js';
import { logEntriesArray } from '../../spec/raft/log-entries.js';
import { layoutOf, SimCluster } from './sim-cluster.js';

const request: ClientRequest = { client: 4, seq: 9, op: 'put', key: 'k', value: 'v' };

test('admitRequest: a record answers, a leader waits for what it holds, else proposes', () => {
  const held = { request, index: 12, term: 3 };
  assert.equal(admitRequest(null, held, request, true), { type: 'await', index: 12, term: 3 });
  assert.equal(admitRequest(null, held, { ...request }, false), { type: 'propose' });
  assert.equal(admitRequest(null, undefined, request, true), { type: 'propose' });
  // Another request under the same (client, seq) goes to the log: apply refuses it there.
  assert.equal(admitRequest(null, held, { ...request, value: 'w' }, true), { type: 'propose' });
  assert.equal(admitRequest(null, held, { ...request, seq: 10 }, true), { type: 'propose' });
  // Applied already: its dedup record answers, on any replica.
  const recorded = { type: 'ok' } as const;
  assert.equal(admitRequest(recorded, undefined, request, false),
    { type: 'answer', result: recorded });
});

/** The entries of `name`'s log that carry client `client`'s request `seq`. */
function copies(cluster: SimCluster, name: string, client: number, seq: number): number {
  const log = logEntriesArray(cluster.servers.get(name)!.view()!.raft.log);
  return log.filter((entry) => {
    const command = entry.command as { type?: string; request?: ClientRequest } | null;
    return command?.type === 'client' && command.request?.client === client &&
      command.request.seq === seq;
  }).length;
}

test('a put retried while its entry syncs is in every log once, and answered', async () => {
  const layout = layoutOf(3, [100], 3, 2);
  // Slow disks and an impatient clerk: the first attempt times out long before it applies.
  const cluster = new SimCluster({ seed: 5, layout, syncDelayMs: 60 });
  await cluster.startAll();
  const limitMs = 60_000;
  const deadline = cluster.clock.now() + limitMs;
  const admin = cluster.clerk('admin-0');
  const joined = await cluster.settle(admin.join({ 100: layout.groups[100]! }, deadline), limitMs);
  assert.is(joined.status, 'ok', JSON.stringify(joined));
  assert.is((await cluster.settle(admin.waitPublished(1, deadline), limitMs)).status, 'ok');
  const clerk = cluster.clerk('client-1', 10);
  const outcome = await cluster.settle(clerk.put('k', 'value', deadline), limitMs);
  assert.is(outcome.status, 'ok');
  await cluster.run(2_000);
  const servers = layout.groups[100]!;
  const session = (clerk as unknown as { client: { session: number } }).client.session;
  for (const name of servers) assert.is(copies(cluster, name, session, 1), 1, name);
  assert.equal(cluster.fatal, []);
});

test.run();
