/**
 * CRC-32 (IEEE 802.3, the polynomial zlib and PNG use), table-driven. For the journal's small frames a
 * call into native zlib costs more than the checksum itself; bytes are identical to zlib.crc32's
 * (crc32.test.ts checks).
 */
const table = new Int32Array(256);
for (let index = 0; index < 256; index++) {
  let value = index;
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  table[index] = value;
}

/** CRC-32 of `bytes[start, end)` (the whole array by default); no subarray is made. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = -1;
  for (let index = start; index < end; index++) crc = table[(crc ^ bytes[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
