/**
 * DIR/network.json: the fault injection in force (`cluster net`, `isolate`, `heal`). Commands
 * write it before telling the live nodes, and a node reads it when it starts, so a node that
 * restarts during an unreliable run or while isolated comes back in the same state.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { FaultSettings } from './control.js';
import type { ClusterPaths } from './paths.js';

export interface NetworkState {
  readonly unreliable: boolean;
  /** Node i draws its faults from seed + i, so runs with one seed repeat per node. */
  readonly seed: number;
  readonly isolated: readonly string[];
}

export const reliableNetwork: NetworkState = { unreliable: false, seed: 0, isolated: [] };

export function readNetworkState(paths: ClusterPaths): NetworkState {
  try {
    const state = JSON.parse(readFileSync(paths.networkFile, 'utf8')) as NetworkState;
    const valid =
      typeof state.unreliable === 'boolean' && Number.isSafeInteger(state.seed) &&
      Array.isArray(state.isolated);
    return valid ? state : reliableNetwork;
  } catch {
    return reliableNetwork;
  }
}

export function writeNetworkState(paths: ClusterPaths, state: NetworkState): void {
  const temporary = `${paths.networkFile}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(state) + '\n');
  renameSync(temporary, paths.networkFile);
}

/** What node number `index` called `name` applies. */
export function faultsFor(state: NetworkState, name: string, index: number): FaultSettings {
  return {
    unreliable: state.unreliable,
    seed: state.seed + index,
    isolated: state.isolated.includes(name),
  };
}
