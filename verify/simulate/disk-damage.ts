/**
 * Disk damage after sync (issue 26 item 5, issue 24 item 6) and its named check, DiskDamage.
 * In one seed of `diskDamageSeedOdds` that has crashes, the simulated disk of one server is
 * damaged while the server is down, once: a byte an fsync had made durable flips in a WAL
 * segment or in the snapshot file, or a durable rename of the snapshot file comes undone (a
 * disk that lied about a directory fsync). What the restart must do:
 * - after a flipped byte, refuse to load (WalCorruptionError): the server stops for good with
 *   one line naming the file, the offset and the reason ("detected and stopped"); a load that
 *   succeeds applied the damaged byte or cut it off with the records around it, and a start
 *   that fails otherwise broke on the damaged bytes: both fail the check;
 * - after a lost rename, refuse to load (the log no longer meets the snapshot, or no longer
 *   reaches the saved commit index: "detected and stopped") or load a state the safety monitor accepts from the old snapshot and the log
 *   ("recovered"), both fine.
 * Only one server of one seed is ever damaged, so every Raft group keeps a majority and the
 * run's other checks still require progress. The draws come from a stream of their own.
 */
import type { Random } from '../../impl/io/random.js';
import type { MemoryDisk } from '../../impl/sim/memory-disk.js';
import { WalCorruptionError } from '../../impl/wal/errors.js';
import type { VirtualClock } from '../../impl/sim/virtual-clock.js';
import type { EventLog } from './event-log.js';
import type { FaultMode } from './options.js';

/** One seed in this many (of those with crashes) damages a disk. */
export const diskDamageSeedOdds = 4;
/** The damage falls on the first restart after a time drawn up to this. */
export const diskDamageDueMsMax = 2_000;

export type DiskDamageKind = 'flipped byte' | 'lost rename';

export interface DiskDamageOutcome {
  readonly server: string;
  readonly kind: DiskDamageKind;
  /** What was damaged: `path at offset N`, or `rename from -> to`. */
  readonly what: string;
  readonly result: 'detected and stopped' | 'recovered';
}

interface Planted {
  readonly server: string;
  readonly kind: DiskDamageKind;
  readonly what: string;
}

const damageableFile = /\/(wal-\d{16}\.log|snapshot\.bin)$/;

export class DiskDamage {
  readonly outcomes: DiskDamageOutcome[] = [];
  private readonly dueAtMs: number | null;
  private planted: Planted | null = null;
  private done = false;

  constructor(
    private readonly random: Random,
    private readonly clock: VirtualClock,
    private readonly log: EventLog,
    private readonly fail: (invariant: string, detail: string) => void,
    faults: FaultMode,
  ) {
    const crashes = faults === 'crash' || faults === 'all';
    const damaged = crashes && random.nextInt(diskDamageSeedOdds) === 0;
    this.dueAtMs = damaged ? random.nextInt(diskDamageDueMsMax + 1) : null;
  }

  /** A server that was down is about to restart from `disk`: maybe damage it first. */
  beforeRestart(server: string, disk: MemoryDisk): void {
    if (this.done || this.dueAtMs === null || this.clock.now() < this.dueAtMs) return;
    this.done = true;
    const rename = this.random.nextInt(3) === 0 ? disk.loseSyncedRename() : null;
    if (rename !== null) {
      this.plant({ server, kind: 'lost rename', what: `rename ${rename.from} -> ${rename.to}` });
      return;
    }
    const flip = disk.damageSyncedByte(this.random, (path) => damageableFile.test(path));
    if (flip === null) return;
    this.plant({ server, kind: 'flipped byte', what: `${flip.path} at offset ${flip.offset}` });
  }

  /** The server loaded its storage. */
  loaded(server: string): void {
    const planted = this.planted;
    if (planted === null || planted.server !== server) return;
    this.planted = null;
    if (planted.kind === 'flipped byte') {
      this.fail('DiskDamage', `${server} loaded its storage over a flipped byte ` +
        `(${planted.what}) without refusing it: the byte was applied or cut off unreported`);
      return;
    }
    this.record(planted, 'recovered');
  }

  /** The server's start failed; true if that is the damage detected (it then stays down). */
  refused(server: string, error: unknown): boolean {
    const planted = this.planted;
    if (planted === null || planted.server !== server) return false;
    this.planted = null;
    if (!(error instanceof WalCorruptionError)) {
      // The damaged bytes got past the WAL into the server, which then broke on them.
      this.fail('DiskDamage', `${server} did not refuse its damaged disk (${planted.what}) ` +
        `and failed on it: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
    this.log.add(this.clock.now(), server, `stopped: ${error.message}`);
    this.record(planted, 'detected and stopped');
    return true;
  }

  private plant(planted: Planted): void {
    this.planted = planted;
    this.log.add(this.clock.now(), 'nemesis', `disk damage on ${planted.server}: ` +
      `${planted.kind}, ${planted.what}`);
  }

  private record(planted: Planted, result: DiskDamageOutcome['result']): void {
    this.outcomes.push({ ...planted, result });
    this.log.add(this.clock.now(), 'simulator', `DiskDamage: ${planted.server} ` +
      `${planted.kind}: ${result}`);
  }
}

export function describeDiskDamage(outcome: DiskDamageOutcome): string {
  return `${outcome.server} ${outcome.kind}: ${outcome.result}`;
}
