// Not a test: measures WAL appends per second on the real disk for group commits of 1, 16 and
// 64 records per fsync. Run: node --import tsx bench/wal-throughput.ts [syncs per size]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeFileSystem } from '../impl/real/node-file-system.js';
import { WalStorage } from '../impl/wal/wal-storage.js';

const syncsPerSize = Number(process.argv[2] ?? 200);
const root = mkdtempSync(join(tmpdir(), 'shardkv-wal-throughput-'));
const command = { key: 'k'.repeat(16), value: 'v'.repeat(84) };
try {
  for (const batch of [1, 16, 64]) {
    const storage = new WalStorage<typeof command, null>({
      fileSystem: new NodeFileSystem(), directory: join(root, `batch-${batch}`),
    });
    await storage.load();
    let index = 1;
    const started = performance.now();
    for (let sync = 0; sync < syncsPerSize; sync++) {
      storage.appendEntries(index, Array.from({ length: batch }, () => ({ term: 1, command })));
      storage.saveHardState({ currentTerm: 1, votedFor: 0, commitIndex: index });
      index += batch;
      await storage.sync();
    }
    const seconds = (performance.now() - started) / 1000;
    const appends = syncsPerSize * batch;
    const perSyncMs = (seconds * 1000 / syncsPerSize).toFixed(2);
    console.log(`${batch} per fsync: ${Math.round(appends / seconds)} appends/s, ` +
      `${Math.round(syncsPerSize / seconds)} fsyncs/s, ${perSyncMs} ms per sync`);
    await storage.close();
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
