/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of iSCSI, ext4 metadata and
 * etcd's WAL: it catches every burst error up to 32 bits, which is what a torn sector leaves.
 * Slicing-by-8 (Intel's, as in zlib and the Linux kernel): eight bytes per step through eight
 * tables, the same value as the byte loop it replaced, about four times fewer table reads; a
 * record holding a shard image is 10 MiB, and its CRC was a tenth of a second of a loaded
 * replica's loop (docs/benchmarks.md, the 10 MiB shard move). A large record (a snapshot) is
 * checksummed piece by piece: crc32cStart, crc32cUpdate per piece, crc32cFinish.
 */
const tableCount = 8;
const tables = buildTables();

/** tables[k * 256 + byte]: the CRC of `byte` followed by k zero bytes. */
function buildTables(): Uint32Array {
  const result = new Uint32Array(tableCount * 256);
  for (let byte = 0; byte < 256; byte++) {
    let value = byte;
    for (let bit = 0; bit < 8; bit++) value = value & 1 ? (value >>> 1) ^ 0x82f63b78 : value >>> 1;
    result[byte] = value >>> 0;
  }
  for (let slice = 1; slice < tableCount; slice++) {
    for (let byte = 0; byte < 256; byte++) {
      const previous = result[(slice - 1) * 256 + byte]!;
      result[slice * 256 + byte] = ((previous >>> 8) ^ result[previous & 0xff]!) >>> 0;
    }
  }
  return result;
}

/** The running value before any byte. */
export const crc32cStart = 0xffffffff;

/** The running value after `bytes[start, end)` more. */
export function crc32cUpdate(
  crc: number, bytes: Uint8Array, start = 0, end = bytes.length,
): number {
  const t = tables;
  let value = crc;
  let index = start;
  for (; index + 8 <= end; index += 8) {
    const word = value ^ (bytes[index]! | (bytes[index + 1]! << 8) |
      (bytes[index + 2]! << 16) | (bytes[index + 3]! << 24));
    value = t[1792 + (word & 0xff)]! ^ t[1536 + ((word >>> 8) & 0xff)]! ^
      t[1280 + ((word >>> 16) & 0xff)]! ^ t[1024 + (word >>> 24)]! ^
      t[768 + bytes[index + 4]!]! ^ t[512 + bytes[index + 5]!]! ^
      t[256 + bytes[index + 6]!]! ^ t[bytes[index + 7]!]!;
  }
  for (; index < end; index++) value = t[(value ^ bytes[index]!) & 0xff]! ^ (value >>> 8);
  return value >>> 0;
}

export function crc32cFinish(crc: number): number {
  return (crc ^ 0xffffffff) >>> 0;
}

/** The CRC-32C of `bytes[start, end)`. */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  return crc32cFinish(crc32cUpdate(crc32cStart, bytes, start, end));
}
