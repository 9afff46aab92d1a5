/**
 * The cluster's two secrets, created by `cluster start` and readable by their owner only:
 * `cluster.secret` (nodes and admin tools: peers, ctl, cluster) and `client.secret` (kv
 * clients). 32 random bytes each, stored as hex.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { ClusterInputError } from './errors.js';
import type { ClusterPaths } from './paths.js';

const secretBytes = 32;

export interface ClusterSecrets {
  readonly cluster: Buffer;
  readonly client: Buffer;
}

export function createSecrets(paths: ClusterPaths): ClusterSecrets {
  const secrets = { cluster: randomBytes(secretBytes), client: randomBytes(secretBytes) };
  for (const [path, secret] of [
    [paths.clusterSecret, secrets.cluster], [paths.clientSecret, secrets.client],
  ] as const) {
    writeFileSync(path, secret.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  }
  return secrets;
}

export function readSecret(path: string): Buffer {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ClusterInputError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code}`);
  }
  if (!/^([0-9a-f]{2}){16,}$/.test(text)) throw new ClusterInputError(`${path} is not a secret`);
  return Buffer.from(text, 'hex');
}

export function readSecrets(paths: ClusterPaths): ClusterSecrets {
  return { cluster: readSecret(paths.clusterSecret), client: readSecret(paths.clientSecret) };
}
