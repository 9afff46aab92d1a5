import { breadthFirstSearch } from '../../checker/bfs.js';
import { resolveParams } from '../../checker/params.js';
import { raftDefinition } from '../../models/raft/index.js';
import { expected } from './bug-expectations.js';
for (const { bug, slow } of expected) {
  if (slow) continue;
  const params = resolveParams(raftDefinition, bug, {});
  const c = process.cpuUsage();
  const r = breadthFirstSearch(raftDefinition.create(params, undefined));
  const u = process.cpuUsage(c);
  console.log(bug, r.result, r.distinctStates, ((u.user + u.system) / 1e6).toFixed(2));
}
