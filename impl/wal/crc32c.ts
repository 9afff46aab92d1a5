/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of iSCSI, ext4 metadata and
 * etcd's WAL: it catches every burst error up to 32 bits, which is what a torn sector leaves.
 * A plain table-driven byte loop; no slicing tricks, records are small. A large record (a
 * snapshot) is checksummed piece by piece: crc32cStart, crc32cUpdate per piece, crc32cFinish.
 */
const table = buildTable();

function buildTable(): Uint32Array {
  const result = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let value = byte;
    for (let bit = 0; bit < 8; bit++) value = value & 1 ? (value >>> 1) ^ 0x82f63b78 : value >>> 1;
    result[byte] = value >>> 0;
  }
  return result;
}

/** The running value before any byte. */
export const crc32cStart = 0xffffffff;

/** The running value after `bytes[start, end)` more. */
export function crc32cUpdate(
  crc: number, bytes: Uint8Array, start = 0, end = bytes.length,
): number {
  let value = crc;
  for (let index = start; index < end; index++) {
    value = table[(value ^ bytes[index]!) & 0xff]! ^ (value >>> 8);
  }
  return value;
}

export function crc32cFinish(crc: number): number {
  return (crc ^ 0xffffffff) >>> 0;
}

/** The CRC-32C of `bytes[start, end)`. */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  return crc32cFinish(crc32cUpdate(crc32cStart, bytes, start, end));
}
