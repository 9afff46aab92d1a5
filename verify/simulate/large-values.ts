/**
 * Large values in a simulated run (issue 27): `shardkv simulate --value-bytes B` pads every
 * written token (write-checks.ts) to B bytes and gives the servers a value limit of two such
 * values, so that appends grow keys to the limit and past it (refused: value-too-large),
 * entries outgrow the snapshot bound and frames grow large. The padding carries no token, so
 * the write checks read the same tokens as with small values. 0 (the default) writes the bare
 * token, draws nothing and keeps the shell's limit: every seed's run is the one it was.
 */

/** `token` followed by dots up to `valueBytes` bytes (the token alone when it is longer). */
export function writeValue(token: string, valueBytes: number): string {
  return valueBytes <= token.length ? token : token + '.'.repeat(valueBytes - token.length);
}

/** What an event line says of a written value: the token, and the padding's size. */
export function describeValue(token: string, value: string): string {
  return value === token ? token : `${token} (+${value.length - token.length} bytes)`;
}

/** Padded runs give the servers a value limit of two writes, so appends reach it. */
export const valuesPerKeyMax = 2;

/** The servers' tuning for padded values (none: the shell's default limit). */
export function serverValueLimit(valueBytes: number): { maxValueBytes?: number } {
  return valueBytes === 0 ? {} : { maxValueBytes: valuesPerKeyMax * valueBytes };
}
