/**
 * The controller's named safety properties about its history of configurations (DESIGN §3):
 *
 * - HistoryImmutable: a step keeps every earlier configuration, unchanged, and appends at most
 *   one, numbered latest + 1. It relates the state before a step to the one after: the
 *   `controller` model measures it at each step and keeps the result as a history variable.
 * - ConfigsInOrder: configurations are applied one at a time, N -> N+1, never skipped: the
 *   intent in flight is for `current + 1`. A state predicate: the simulator's monitor reads it
 *   on every controller replica's applied state, conform on every one it replays. The models
 *   do not check it: the `controller` model keeps no intent, and in the `migration` model
 *   skip-config breaks NoLostWrite or AtMostOneServer first.
 *
 * And the goal of DESIGN §3's liveness, "every recorded configuration is eventually
 * published": `latestPublished`, which the `migration` model's RecordedConfigsPublished
 * (P ~> Q) has as Q, and the simulator requires of the settled end state (Liveness).
 */
import { assert } from '../spec/assert.js';
import { groupGids, memberGids } from '../spec/controller/operations.js';
import type { ControllerState } from '../spec/controller/state-machine.js';
import type { Config } from '../spec/controller/types.js';

/** A deep copy of the configurations, taken before a step for `keepsHistory`. */
export function copyConfigs(configs: readonly Config[]): Config[] {
  return configs.map((config) => {
    const groups: Record<number, readonly string[]> = {};
    for (const gid of groupGids(config.groups)) groups[gid] = config.groups[gid]!.slice();
    return { num: config.num, shards: config.shards.slice(), groups };
  });
}

/** Two lists with the same items in the same order. */
export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

export function sameConfig(a: Config, b: Config): boolean {
  if (a.num !== b.num || !sameList(a.shards, b.shards)) return false;
  const gids = groupGids(a.groups);
  if (!sameList(gids, groupGids(b.groups))) return false;
  return gids.every((gid) => sameList(a.groups[gid]!, b.groups[gid]!));
}

/**
 * HistoryImmutable for one step of the replicated state machine: `after` holds every
 * configuration of `before` unchanged (compared with `beforeCopy`, `copyConfigs` of them taken
 * before the step, so a rewrite in place shows) and at most one more, numbered latest + 1.
 */
export function keepsHistory(beforeCopy: readonly Config[], after: ControllerState): boolean {
  const added = after.configs.length - beforeCopy.length;
  if (added < 0 || added > 1) return false;
  for (let index = 0; index < beforeCopy.length; index++) {
    if (!sameConfig(beforeCopy[index]!, after.configs[index]!)) return false;
  }
  if (added === 0) return true;
  const previous = after.configs[after.configs.length - 2];
  const appended = after.configs[after.configs.length - 1]!;
  return previous === undefined ? appended.num === 0 : appended.num === previous.num + 1;
}

/** Freezes a configuration (its shards, groups and server lists) so that no step can change it. */
export function freezeConfig(config: Config): Config {
  for (const gid of memberGids(config)) Object.freeze(config.groups[gid]);
  Object.freeze(config.shards);
  Object.freeze(config.groups);
  return Object.freeze(config);
}

const isFrozenConfig = (config: Config) =>
  Object.isFrozen(config) && Object.isFrozen(config.shards) && Object.isFrozen(config.groups);

/**
 * HistoryImmutable for a step from a state whose configurations are frozen (`freezeConfig`),
 * as the model's are: a write in place would have thrown, so keeping the same objects is
 * keeping them unchanged. Cheaper than `keepsHistory`, which needs a copy.
 */
export function keepsFrozenHistory(before: ControllerState, after: ControllerState): boolean {
  assert(before.configs.every(isFrozenConfig), 'keepsFrozenHistory: a configuration is not frozen');
  const added = after.configs.length - before.configs.length;
  if (added < 0 || added > 1) return false;
  for (let index = 0; index < before.configs.length; index++) {
    if (before.configs[index] !== after.configs[index]) return false;
  }
  if (added === 0) return true;
  const previous = after.configs[after.configs.length - 2];
  const appended = after.configs[after.configs.length - 1]!;
  return previous === undefined ? appended.num === 0 : appended.num === previous.num + 1;
}

/**
 * HistoryImmutable on what Query answers (CONTRACT `ctl query N`): the answer to Query(num)
 * is the configuration `configs` holds at num, or the latest for -1 and past the end.
 */
export function queryAnswersHistory(
  configs: readonly Config[],
  num: number,
  answer: Config,
): boolean {
  assert(configs.length > 0 && Number.isSafeInteger(num) && num >= -1, `query ${num}`);
  const held = num === -1 || num >= configs.length ? configs[configs.length - 1]! : configs[num]!;
  return sameConfig(held, answer);
}

/** ConfigsInOrder: the intent in flight, if any, is for the configuration after `current`. */
export interface IntentView {
  readonly current: number;
  /** The intent in flight (only its number is read), or null. */
  readonly next: { readonly num: number } | null;
}

export function configsInOrder(controller: IntentView): boolean {
  return controller.next === null || controller.next.num === controller.current + 1;
}

/** "ctl-0 (at index 7) plans configuration 3 while configuration 1 is current". */
export function explainConfigsInOrder(
  controller: IntentView,
  who = 'the controller',
): string {
  if (controller.next === null) return `${who} plans no configuration`;
  return `${who} plans configuration ${controller.next.num} while configuration ` +
    `${controller.current} is current`;
}

/** The latest recorded configuration is the published one. */
export function latestPublished(controller: Pick<ControllerState, 'configs' | 'current'>): boolean {
  return controller.current === controller.configs.length - 1;
}
