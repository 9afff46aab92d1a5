/**
 * Fault injection for CONTRACT's `cluster net --unreliable on` and `cluster isolate|heal`, as
 * the MIT 6.5840 lab's labrpc does it: a frame is lost with probability 10% or delayed 0-26 ms,
 * drawn from a seeded generator. A request and its reply are separate frames, so 10% of
 * requests and 10% of replies are lost. An isolated node neither sends nor receives.
 */
import type { Random } from '../io/random.js';
import { SeededRandom } from '../random/seeded-random.js';

export const unreliableDropRate = 0.1;
export const unreliableDelayMsMax = 26;

export type FaultDecision =
  | { readonly kind: 'drop' }
  | { readonly kind: 'deliver'; readonly delayMs: number };

export class NetworkFaultInjector {
  private unreliable = false;
  private random: Random = new SeededRandom(0);
  isolated = false;
  /** Frames this node lost on purpose (unreliable or isolated), sent or received. */
  droppedFrames = 0;

  /** Turns the unreliable network on (with a seed for its draws) or off. */
  setUnreliable(on: boolean, seed = 0): void {
    this.unreliable = on;
    this.random = new SeededRandom(seed);
  }

  get isUnreliable(): boolean {
    return this.unreliable;
  }

  /** What happens to one frame: two draws (drop, then delay) when the network is unreliable. */
  decide(): FaultDecision {
    if (this.isolated) return this.drop();
    if (!this.unreliable) return { kind: 'deliver', delayMs: 0 };
    if (this.random.nextFloat() < unreliableDropRate) return this.drop();
    return { kind: 'deliver', delayMs: this.random.nextInt(unreliableDelayMsMax + 1) };
  }

  /** Whether a received frame is lost to isolation (counted). */
  dropsReceived(): boolean {
    if (this.isolated) this.drop();
    return this.isolated;
  }

  private drop(): FaultDecision {
    this.droppedFrames++;
    return { kind: 'drop' };
  }
}
