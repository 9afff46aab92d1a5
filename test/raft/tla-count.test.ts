// @tier full: the whole raft.tla space of 3 servers, about 45 s of one core.
// Calibration against TLC on Ongaro's raft.tla (issue 3), the preset's full count.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { createTlaModel } from '../../models/raft/tla-preset.js';

// TLC on raft.tla (3 servers, 1 value, MaxTerm 2, MaxLogLen 1, MaxMsgs 1): 2,379,781 distinct
// states, 28,169,044 generated, depth 53 (TLC counts the initial state as depth 1).
const bounds = { servers: 3, values: 1, maxTerm: 2, maxLog: 1, maxMsgs: 1 };

test("raft.tla with 3 servers: exactly TLC's 2,379,781 distinct states", () => {
  const result = breadthFirstSearch(createTlaModel(bounds) as never);
  assert.is(result.result, 'ok');
  assert.is(result.distinctStates, 2_379_781);
  assert.is(result.statesGenerated, 28_169_044);
  assert.is(result.depth + 1, 53);
});

test.run();
