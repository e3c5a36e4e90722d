/**
 * Where this process's allocator puts 64-byte cache-line boundaries in a large buffer, for the order store's
 * records (engine/core/order-store.ts, `EngineOptions.recordsByteOffset`).
 *
 * Node takes the memory of an ArrayBuffer from the C library's malloc. glibc maps a large block (above its
 * mmap threshold, at most 32 MiB: the records of a book of 256 k orders or more always are) on its own
 * pages and returns the address 16 bytes past the first page's start, after the block's header; so byte 48
 * of such a buffer starts a line. Measured here (a throw-away probe: random reads of the first and last
 * word of 64-byte spans at each offset of a 256 MiB buffer, 4 M reads a round): spans starting at byte 48
 * or 112 of a 128-byte stride took 102-108 ms, every other offset 117-135 ms, with 4 KiB and with 2 MiB
 * pages. Other C libraries lay large blocks out otherwise (macOS's returns them page-aligned): 0 there, as
 * before. Smaller buffers come from the heap at any 16-byte boundary; the offset does no harm there.
 */

/** Byte 48 of a buffer glibc maps starts a line (see the file comment). */
const glibcLineOffset = 48;

/** `recordsByteOffset` for a process on `platform` with glibc version `glibcVersion` (undefined: another C library). */
export function recordsByteOffsetFor(platform: string, glibcVersion: string | undefined): number {
  return platform === 'linux' && glibcVersion !== undefined && /^\d+\.\d+/.test(glibcVersion) ? glibcLineOffset : 0;
}

let glibc: { version: string | undefined } | null = null;

/** The running glibc's version ("2.36"), or undefined off Linux or with another C library (read once). */
export function glibcVersion(): string | undefined {
  if (glibc === null) {
    const report = process.platform === 'linux' ? (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined) : undefined;
    glibc = { version: report?.header?.glibcVersionRuntime };
  }
  return glibc.version;
}

/** `recordsByteOffset` for this process. */
export function recordsByteOffset(): number {
  return recordsByteOffsetFor(process.platform, glibcVersion());
}
