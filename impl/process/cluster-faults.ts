/**
 * `cluster net --unreliable on|off`, `cluster isolate`, `cluster heal`: the new fault state is
 * written to DIR/network.json (for nodes that start later) and sent to every live node over
 * process control; the command returns once each live node has applied it.
 */
import { entropySeed } from '../random/entropy-seed.js';
import { AdminClient } from './admin-client.js';
import { allNodes } from './cluster-file.js';
import type { OpenCluster } from './cluster-nodes.js';
import { ClusterFailure, ClusterInputError } from './errors.js';
import { faultsFor, readNetworkState, writeNetworkState, type NetworkState } from './network.js';
import { runningPid } from './pids.js';
import { readSecrets } from './secrets.js';

const applyTimeoutMs = 5000;

export async function setUnreliable(cluster: OpenCluster, on: boolean, seed?: number) {
  const current = readNetworkState(cluster.paths);
  return applyNetwork(cluster, { ...current, unreliable: on, seed: seed ?? entropySeed() });
}

export async function isolateNode(cluster: OpenCluster, name: string) {
  if (!allNodes(cluster.file).includes(name)) {
    throw new ClusterInputError(`no node named '${name}' in ${cluster.paths.root}`);
  }
  const current = readNetworkState(cluster.paths);
  const isolated = [...new Set([...current.isolated, name])].sort();
  return applyNetwork(cluster, { ...current, isolated });
}

export async function healNetwork(cluster: OpenCluster) {
  return applyNetwork(cluster, { ...readNetworkState(cluster.paths), isolated: [] });
}

/** Writes the state, then tells every live node; returns the nodes told. */
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
