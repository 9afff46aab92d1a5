/**
 * The hosts file of `cluster init --hosts FILE`: one node per line, `NAME HOST:PORT`
 * (`#` starts a comment). The names must be those of some cluster shape (CONTRACT:
 * `ctl-0..C-1`, `g<gid>-0..N-1` with gids 100, 101, ... and N servers in every group), so the
 * shape is read from the names rather than given twice.
 */
import { nodeNamesOf, type ClusterShape, type NodeAddress } from './cluster-file.js';

export interface HostsFile {
  readonly shape: Omit<ClusterShape, 'shards'>;
  readonly addresses: Readonly<Record<string, NodeAddress>>;
}

/** The parsed file, or the reason it is not one (with its line number). */
export function parseHostsFile(text: string): HostsFile | string {
  const addresses: Record<string, NodeAddress> = {};
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const match = /^(\S+)\s+(\S+):(\d+)$/.exec(line);
    if (match === null) return `line ${index + 1}: expected 'NAME HOST:PORT', got '${line}'`;
    const [, name, host, portText] = match as unknown as [string, string, string, string];
    const port = Number(portText);
    if (port < 1 || port > 65535) return `line ${index + 1}: port ${port} is out of range`;
    if (name in addresses) return `line ${index + 1}: ${name} is named twice`;
    addresses[name] = { host: host.replace(/^\[(.*)\]$/, '$1'), port };
  }
  const shape = shapeOf(Object.keys(addresses));
  return typeof shape === 'string' ? shape : { shape, addresses };
}

function shapeOf(names: readonly string[]): HostsFile['shape'] | string {
  const controllers = names.filter((name) => name.startsWith('ctl-')).length;
  const gids = new Set(names.flatMap((name) => /^g(\d+)-\d+$/.exec(name)?.[1] ?? []));
  const servers = names.filter((name) => name.startsWith('g100-')).length;
  const shape = { groups: gids.size, servers, controllers };
  if (controllers === 0 || gids.size === 0 || servers === 0) {
    return 'the file must name controllers (ctl-0, ...) and groups (g100-0, ...)';
  }
  const expected = nodeNamesOf({ ...shape, shards: 1 });
  const wanted = [...expected.controllers, ...Object.values(expected.groups).flat()];
  const missing = wanted.find((name) => !names.includes(name));
  if (missing !== undefined) return `no line names ${missing} (${describe(shape)})`;
  const extra = names.find((name) => !wanted.includes(name));
  if (extra !== undefined) return `${extra} is not a node of ${describe(shape)}`;
  return shape;
}

function describe(shape: HostsFile['shape']): string {
  return `${shape.controllers} controllers, ${shape.groups} groups of ${shape.servers}`;
}
