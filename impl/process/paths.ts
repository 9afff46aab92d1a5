/**
 * Where a cluster keeps everything under its DIR (CONTRACT: "everything a node keeps lives
 * under DIR"):
 *
 *     DIR/cluster.json        names, addresses, shard count, settings (cluster-file.ts)
 *     DIR/cluster.secret      authenticates nodes and admin tools (mode 0600)
 *     DIR/client.secret       authenticates kv clients, which are not admins (mode 0600)
 *     DIR/network.json        the fault injection in force (cluster net / isolate / heal)
 *     DIR/cluster.lock        held while a command starts or stops processes
 *     DIR/nodes/NAME/data/    the node's WAL segments and snapshot
 *     DIR/nodes/NAME/node.pid the process id while it runs
 *     DIR/nodes/NAME/node.log what the node logged (appended across restarts)
 *     DIR/traces/             actor steps, with `cluster start --trace`
 */
import { join, resolve } from 'node:path';

export class ClusterPaths {
  readonly root: string;

  constructor(directory: string) {
    this.root = resolve(directory);
  }

  get clusterFile(): string {
    return join(this.root, 'cluster.json');
  }

  get clusterSecret(): string {
    return join(this.root, 'cluster.secret');
  }

  get clientSecret(): string {
    return join(this.root, 'client.secret');
  }

  get networkFile(): string {
    return join(this.root, 'network.json');
  }

  get lockFile(): string {
    return join(this.root, 'cluster.lock');
  }

  get tracesDirectory(): string {
    return join(this.root, 'traces');
  }

  nodeDirectory(name: string): string {
    return join(this.root, 'nodes', name);
  }

  dataDirectory(name: string): string {
    return join(this.nodeDirectory(name), 'data');
  }

  pidFile(name: string): string {
    return join(this.nodeDirectory(name), 'node.pid');
  }

  logFile(name: string): string {
    return join(this.nodeDirectory(name), 'node.log');
  }
}
