/**
 * `cluster net --unreliable on|off`, `cluster isolate`, `cluster heal`: the new fault state is
 * written to DIR/network.json (for nodes that start later) and sent to every live node over
 * process control; the command returns once each live node has applied it. The change reads and
 * writes network.json under DIR/cluster.lock, so two concurrent commands never lose one's edit.
 */
import { entropySeed } from '../random/entropy-seed.js';
import { AdminClient } from './admin-client.js';
import { allNodes } from './cluster-file.js';
import type { OpenCluster } from './cluster-nodes.js';
import { lockTimeoutMs } from './cluster-start.js';
import { ClusterFailure, ClusterInputError } from './errors.js';
import { withClusterLock } from './lock.js';
import { faultsFor, readNetworkState, writeNetworkState, type NetworkState } from './network.js';
import { runningPid } from './pids.js';
import { readSecrets } from './secrets.js';

const applyTimeoutMs = 5000;

export async function setUnreliable(cluster: OpenCluster, on: boolean, seed?: number) {
  return changeNetwork(cluster, (current) =>
    ({ ...current, unreliable: on, seed: seed ?? entropySeed() }));
}

export async function isolateNode(cluster: OpenCluster, name: string) {
  if (!allNodes(cluster.file).includes(name)) {
    throw new ClusterInputError(`no node named '${name}' in ${cluster.paths.root}`);
  }
  return changeNetwork(cluster, (current) =>
    ({ ...current, isolated: [...new Set([...current.isolated, name])].sort() }));
}

export async function healNetwork(cluster: OpenCluster) {
  return changeNetwork(cluster, (current) => ({ ...current, isolated: [] }));
}

/** Under the lock: reads the state, writes its change, then tells every live node. */
function changeNetwork(
  cluster: OpenCluster,
  change: (current: NetworkState) => NetworkState,
): Promise<NetworkState> {
  return withClusterLock(cluster.paths, lockTimeoutMs, () =>
    applyNetwork(cluster, change(readNetworkState(cluster.paths))));
}

async function applyNetwork(cluster: OpenCluster, state: NetworkState): Promise<NetworkState> {
  const { paths, file } = cluster;
  writeNetworkState(paths, state);
  const admin = await AdminClient.open(file, readSecrets(paths).cluster);
  try {
    const names = allNodes(file);
    const missed = await Promise.all(names.map(async (name, index) => {
      if (runningPid(paths, name) === null) return null;
      const reply = await admin.setFaults(name, faultsFor(state, name, index), applyTimeoutMs);
      return reply === null && runningPid(paths, name) !== null ? name : null;
    }));
    const unanswered = missed.filter((name) => name !== null);
    if (unanswered.length > 0) {
      throw new ClusterFailure(`no answer from ${unanswered.join(', ')} (saved for restarts)`);
    }
    return state;
  } finally {
    await admin.close();
  }
}
