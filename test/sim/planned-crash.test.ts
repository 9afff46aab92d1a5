// MemoryDisk's additions for the simulator: a crash planned at the n-th next write reports
// itself through onCrash (the simulator then stops the process that was writing), and a
// planned crash can be called off.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { MemoryDisk, type CrashReport } from '../../impl/sim/memory-disk.js';

test('a planned crash falls at the chosen write and is reported; a cancelled one never falls',
  async () => {
    const reports: CrashReport[] = [];
    const onCrash = (report: CrashReport) => reports.push(report);
    const disk = new MemoryDisk(new SeededRandom(3), { onCrash });
    const files = disk.mount();
    await files.makeDirectory('/data');
    const file = await files.open('/data/log', 'append');
    disk.crashBeforeOperation(2);
    assert.ok(disk.crashPlanned);
    await file.append(Uint8Array.of(1, 2, 3));
    assert.is(reports.length, 0);
    void file.append(Uint8Array.of(4));
    assert.is(reports.length, 1, 'the second write crashed the disk');
    assert.not.ok(disk.crashPlanned);
    assert.ok(reports[0]!.bytesLost <= 3);
    const again = disk.mount();
    const reopened = await again.open('/data/log', 'append');
    disk.crashBeforeOperation(1);
    disk.cancelPlannedCrash();
    await reopened.append(Uint8Array.of(5));
    assert.is(reports.length, 1);
    disk.crash();
    assert.is(reports.length, 2, 'an explicit crash is reported too');
  });

test.run();
