/**
 * A simulated network for the simulator: every frame is an event on the virtual clock, delayed
 * by a seeded draw (so frames overtake each other: reordering), dropped or duplicated at seeded
 * rates, and lost when a partition separates its ends at sending or at delivery time. A node
 * that is down (its endpoint closed) loses what arrives for it. A receiver that calls a frame
 * malformed drops the link it came on, as TCP closes the connection: every frame then in
 * flight between the two, either way, is lost. One seed, one delivery order.
 */
import { assert } from '../../spec/assert.js';
import type { Random } from '../io/random.js';
import type { FrameHandler, FrameVerdict, Transport } from '../io/transport.js';
import type { VirtualClock } from './virtual-clock.js';

export interface NetworkFaults {
  /** Each copy of a frame takes a delay drawn uniformly from [delayMsMin, delayMsMax]. */
  readonly delayMsMin: number;
  readonly delayMsMax: number;
  /** Probability that a frame is lost. */
  readonly dropRate: number;
  /** Probability that a frame that is not lost arrives twice. */
  readonly duplicateRate: number;
  /**
   * Probability that a copy arrives late instead: after a delay drawn uniformly from
   * [delayMsMax, lateDelayMsMax], long after frames sent later (a stale message).
   */
  readonly lateRate?: number;
  readonly lateDelayMsMax?: number;
}

export const reliableNetwork: NetworkFaults = {
  delayMsMin: 1, delayMsMax: 5, dropRate: 0, duplicateRate: 0,
};

export type DropReason = 'random' | 'partition' | 'down' | 'disconnected';

interface Link {
  readonly time: number;
  readonly from: string;
  readonly to: string;
}

export type NetworkEvent =
  /** As the sender hands it over, before any fault: checks read the sender's state then. */
  | (Link & { readonly kind: 'send'; readonly frame: Uint8Array })
  | (Link & { readonly kind: 'deliver'; readonly frame: Uint8Array })
  | (Link & { readonly kind: 'drop'; readonly reason: DropReason });

export interface NetworkStatistics {
  sent: number;
  delivered: number;
  dropped: number;
  duplicated: number;
}

export class SimulatedNetwork {
  private faults: NetworkFaults;
  private readonly endpoints = new Map<string, SimulatedEndpoint>();
  /** Directed links that are cut, as "from\u0000to". */
  private readonly cutLinks = new Set<string>();
  private readonly isolated = new Set<string>();
  /** Times each link (both directions, as "a\u0000b" in name order) was dropped: a frame sent
   * before the latest drop is lost. */
  private readonly linkDrops = new Map<string, number>();
  readonly statistics: NetworkStatistics = { sent: 0, delivered: 0, dropped: 0, duplicated: 0 };

  constructor(
    private readonly clock: VirtualClock,
    private readonly random: Random,
    faults: Partial<NetworkFaults> = {},
    /** Told about every send, delivery and drop: the simulator's checks and event log. */
    private readonly onEvent: (event: NetworkEvent) => void = () => undefined,
  ) {
    this.faults = checkFaults({ ...reliableNetwork, ...faults });
  }

  /** A node's transport. A node restarting after a crash gets a new one; the old one is closed. */
  endpoint(name: string): Transport {
    const existing = this.endpoints.get(name);
    assert(existing === undefined || existing.closed, `${name} already has a live endpoint`);
    const endpoint = new SimulatedEndpoint(name, this);
    this.endpoints.set(name, endpoint);
    return endpoint;
  }

  setFaults(faults: Partial<NetworkFaults>): void {
    this.faults = checkFaults({ ...this.faults, ...faults });
  }

  /** Nodes in different sides cannot reach each other (in addition to earlier cuts). */
  partition(sides: readonly (readonly string[])[]): void {
    sides.forEach((side, sideIndex) => {
      for (const other of sides.slice(sideIndex + 1)) {
        for (const first of side) {
          for (const second of other) {
            this.cutLinks.add(`${first}\u0000${second}`);
            this.cutLinks.add(`${second}\u0000${first}`);
          }
        }
      }
    });
  }

  /** Cuts one node off from every other. */
  isolate(name: string): void {
    this.isolated.add(name);
  }

  /** Undoes every partition and isolation. */
  heal(): void {
    this.cutLinks.clear();
    this.isolated.clear();
  }

  canReach(from: string, to: string): boolean {
    if (from === to) return true;
    if (this.isolated.has(from) || this.isolated.has(to)) return false;
    return !this.cutLinks.has(`${from}\u0000${to}`);
  }

  send(from: string, to: string, frame: Uint8Array): void {
    this.statistics.sent++;
    this.onEvent({ kind: 'send', time: this.clock.now(), from, to, frame });
    if (!this.canReach(from, to)) return this.drop(from, to, 'partition');
    if (this.random.nextFloat() < this.faults.dropRate) return this.drop(from, to, 'random');
    const copy = frame.slice();
    // Which connection of the link the frame travels on: it is lost once that one drops.
    const connection = this.linkDrops.get(linkOf(from, to)) ?? 0;
    this.scheduleDelivery(from, to, copy, connection);
    if (this.random.nextFloat() < this.faults.duplicateRate) {
      this.statistics.duplicated++;
      this.scheduleDelivery(from, to, copy, connection);
    }
  }

  /** Loses every frame in flight between `a` and `b`, either way. */
  private dropLink(a: string, b: string): void {
    const link = linkOf(a, b);
    this.linkDrops.set(link, (this.linkDrops.get(link) ?? 0) + 1);
  }

  private scheduleDelivery(from: string, to: string, frame: Uint8Array, connection: number): void {
    const { delayMsMin, delayMsMax, lateRate = 0, lateDelayMsMax = delayMsMax } = this.faults;
    // Without late frames no draw is spent on them: a seed keeps its earlier delivery order.
    const late = lateRate > 0 && this.random.nextFloat() < lateRate;
    const delayMs = late
      ? delayMsMax + this.random.nextInt(lateDelayMsMax - delayMsMax + 1)
      : delayMsMin + this.random.nextInt(delayMsMax - delayMsMin + 1);
    this.clock.schedule(delayMs, () => this.deliver(from, to, frame, connection));
  }

  private deliver(from: string, to: string, frame: Uint8Array, connection: number): void {
    if (!this.canReach(from, to)) return this.drop(from, to, 'partition');
    if ((this.linkDrops.get(linkOf(from, to)) ?? 0) !== connection) {
      return this.drop(from, to, 'disconnected');
    }
    const endpoint = this.endpoints.get(to);
    if (endpoint === undefined || endpoint.closed) return this.drop(from, to, 'down');
    this.statistics.delivered++;
    this.onEvent({ kind: 'deliver', time: this.clock.now(), from, to, frame });
    if (endpoint.receive(from, frame) === 'malformed') this.dropLink(from, to);
  }

  private drop(from: string, to: string, reason: DropReason): void {
    this.statistics.dropped++;
    this.onEvent({ kind: 'drop', time: this.clock.now(), from, to, reason });
  }
}

/** One key for both directions of a link. */
function linkOf(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

function checkFaults(faults: NetworkFaults): NetworkFaults {
  const { delayMsMin, delayMsMax, dropRate, duplicateRate } = faults;
  assert(Number.isInteger(delayMsMin) && delayMsMin >= 0, `delayMsMin ${delayMsMin}`);
  assert(Number.isInteger(delayMsMax) && delayMsMax >= delayMsMin, `delayMsMax ${delayMsMax}`);
  assert(dropRate >= 0 && dropRate <= 1, `dropRate ${dropRate}`);
  assert(duplicateRate >= 0 && duplicateRate <= 1, `duplicateRate ${duplicateRate}`);
  const { lateRate = 0, lateDelayMsMax = delayMsMax } = faults;
  assert(lateRate >= 0 && lateRate <= 1, `lateRate ${lateRate}`);
  assert(Number.isInteger(lateDelayMsMax) && lateDelayMsMax >= delayMsMax,
    `lateDelayMsMax ${lateDelayMsMax}`);
  return faults;
}

class SimulatedEndpoint implements Transport {
  closed = false;
  private handler: FrameHandler = () => undefined;

  constructor(readonly name: string, private readonly network: SimulatedNetwork) {}

  send(to: string, frame: Uint8Array): void {
    if (!this.closed) this.network.send(this.name, to, frame);
  }

  onFrame(handler: FrameHandler): void {
    this.handler = handler;
  }

  receive(from: string, frame: Uint8Array): FrameVerdict {
    return this.handler(from, frame);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
