/**
 * A stage thread's items (node-stage.ts) as one JSON text per batch (stage-thread.ts): each
 * step a tuple of numbers and short strings, not an object with named fields. Posting the
 * objects themselves cost more than all of the checks across nodes (the structured clone
 * took some 6 µs a step on each side, measured on a million records); a text crosses as one
 * copy and JSON.parse reads tuples fast. Decoding gives back the same values: the
 * observations' place is the step's, and a replica's shard records are sent only when they
 * changed since its last `served` observation (most applies change only a shard's data).
 */
import type { ShardView } from '../../invariants/shard-view.js';
import type { TraceActor } from '../../impl/trace/schema.js';
import type { LinkFacts } from './link-facts.js';
import {
  isFailure, type FloorNote, type NodeStep, type StageFailure, type StageItem,
} from './node-stage.js';
import type { Observation } from './observation.js';

const actors: readonly TraceActor[] = ['raft', 'machine', 'driver', 'shell'];
const actorCodes: Readonly<Record<TraceActor, number>> =
  { raft: 0, machine: 1, driver: 2, shell: 3 };

type Tuple = readonly unknown[];

/** Each side's memory of the shard records a node's last `served` observation held. */
type LastShards = Map<number, readonly ShardView[]>;

function sameShards(a: readonly ShardView[] | undefined, b: readonly ShardView[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let at = 0; at < b.length; at++) {
    if (a[at]!.phase !== b[at]!.phase || a[at]!.identity !== b[at]!.identity) return false;
  }
  return true;
}

function encodeObservation(observation: Observation, node: number, last: LastShards): Tuple {
  switch (observation.kind) {
    case 'leader':
      return [0, observation.group, observation.term];
    case 'applied':
      return [1, observation.group, observation.index, observation.term,
        observation.commandDigest];
    case 'state':
      return [2, observation.group, observation.index, observation.digest];
    case 'served': {
      const same = sameShards(last.get(node), observation.shards);
      last.set(node, observation.shards);
      return [3, observation.gid, observation.appliedIndex, same ? null : observation.shards];
    }
    case 'intent':
      return [4, observation.current, observation.next];
  }
}

function encodeLink(link: LinkFacts): Tuple {
  const delivery = link.delivery;
  const sends: unknown[] = [];
  for (const send of link.sends) sends.push(send.to, send.id, send.hashHigh, send.hashLow);
  return [link.peers, link.syncedStep, link.restart ? 1 : 0, link.gates ? 1 : 0,
    delivery === null ? null : [delivery.from, delivery.id, delivery.sentLamport,
      delivery.hashHigh, delivery.hashLow], sends];
}

/** Encodes a batch of one stage's items; `nodes` are the stage's, `last` its memory. */
export class StepEncoder {
  private readonly numbers: Map<string, number>;
  private readonly last: LastShards = new Map();

  constructor(nodes: readonly string[]) {
    this.numbers = new Map(nodes.map((node, at) => [node, at]));
  }

  encode(items: readonly StageItem[]): string {
    return JSON.stringify(items.map((item) => this.item(item)));
  }

  private item(item: StageItem): unknown {
    const node = this.numbers.get(item.node)!;
    if (isFailure(item)) return { node, lamport: item.lamport, failure: item.failure };
    const floor = item.floor;
    return [node, item.seq, item.inc, item.lamport, actorCodes[item.actor], item.last ? 1 : 0,
      item.link === null ? null : encodeLink(item.link),
      item.observations === null ? null
        : item.observations.map((observation) => encodeObservation(observation, node,
          this.last)),
      floor === null ? null : [floor.group, floor.members,
        floor.index === Infinity ? -1 : floor.index]];
  }
}

/** Decodes what a StepEncoder of the same nodes encoded, in the same order. */
export class StepDecoder {
  private readonly last: LastShards = new Map();

  constructor(private readonly nodes: readonly string[]) {}

  decode(text: string): StageItem[] {
    return (JSON.parse(text) as unknown[]).map((item) => this.item(item));
  }

  private item(item: unknown): StageItem {
    if (!Array.isArray(item)) {
      const failure = item as { node: number; lamport: number; failure: unknown };
      return { ...failure, node: this.nodes[failure.node]! } satisfies StageFailure;
    }
    const [number, seq, inc, lamport, actor, last, link, observations, floor] =
      item as [number, number, number, number, number, number, Tuple | null, Tuple[] | null,
        [string, string[], number] | null];
    const node = this.nodes[number]!;
    return {
      node, seq, inc, lamport, actor: actors[actor]!, last: last === 1,
      link: link === null ? null : decodeLink(link),
      observations: observations === null ? null
        : observations.map((tuple) => this.observation(tuple, node, seq, lamport, number)),
      floor: floor === null ? null : { group: floor[0], members: floor[1],
        index: floor[2] === -1 ? Infinity : floor[2] } satisfies FloorNote,
    } satisfies NodeStep;
  }

  private observation(tuple: Tuple, node: string, seq: number, lamport: number,
    number: number): Observation {
    switch (tuple[0] as number) {
      case 0:
        return { node, seq, lamport, kind: 'leader', group: tuple[1] as string,
          term: tuple[2] as number };
      case 1:
        return { node, seq, lamport, kind: 'applied', group: tuple[1] as string,
          index: tuple[2] as number, term: tuple[3] as number,
          commandDigest: tuple[4] as string };
      case 2:
        return { node, seq, lamport, kind: 'state', group: tuple[1] as string,
          index: tuple[2] as number, digest: tuple[3] as string };
      case 3: {
        const shards = (tuple[3] as ShardView[] | null) ?? this.last.get(number)!;
        this.last.set(number, shards);
        return { node, seq, lamport, kind: 'served', gid: tuple[1] as number,
          appliedIndex: tuple[2] as number, shards };
      }
      default:
        return { node, seq, lamport, kind: 'intent', current: tuple[1] as number,
          next: tuple[2] as number | null };
    }
  }
}

function decodeLink(tuple: Tuple): LinkFacts {
  const [peers, syncedStep, restart, gates, delivery, sends] = tuple as [string[] | null,
    number | null, number, number, [number, string | null, number | null, number, number] | null,
    unknown[]];
  const sent: LinkFacts['sends'][number][] = [];
  for (let at = 0; at < sends.length; at += 4) {
    sent.push({ to: sends[at] as number, id: sends[at + 1] as string,
      hashHigh: sends[at + 2] as number, hashLow: sends[at + 3] as number });
  }
  return {
    peers, syncedStep, restart: restart === 1, gates: gates === 1,
    delivery: delivery === null ? null : { from: delivery[0], id: delivery[1],
      sentLamport: delivery[2], hashHigh: delivery[3], hashLow: delivery[4] },
    sends: sent,
  };
}
