/**
 * Reading one configuration file within bounds: a regular file, no larger than the size limit (checked
 * with fstat before a byte is read), valid UTF-8 (a byte order mark is dropped). Anything else is a
 * located problem; the content of a refused file is never quoted (docs/security.md, "Hostile files").
 */

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";

/** Default of `limits.max_file_bytes` in carte.yaml: 8 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

/** The text of a file, or why it was not read, with a 1-based position when one helps. */
export type ReadResult =
  { ok: true; text: string } | { ok: false; line: number; col: number; message: string };

/**
 * Reads a configuration file.
 *
 * The file is opened without blocking (a FIFO or a device must not hang the run), checked to be a
 * regular file of at most `maxBytes` bytes with fstat, read, and decoded as strict UTF-8.
 *
 * @param path - absolute path, already checked to lie inside the project.
 * @param maxBytes - the size limit in bytes.
 * @returns the text, or why it was not read: missing, not a regular file, too large, not UTF-8 (with the
 *   line and column of the first bad byte), or the operating system's error code. Never throws for
 *   a problem of the file itself.
 */
export async function readConfigFile(path: string, maxBytes: number): Promise<ReadResult> {
  let handle;
  try {
    handle = await open(path, FLAGS);
  } catch (err) {
    return notOpened(err);
  }
  try {
    const stat = await handle.stat();
    const refused = refusal(stat, maxBytes);
    if (refused) return refused;
    // Read at most one byte more than the limit, in case the file grows while being read.
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    return decoded(buffer, length, maxBytes);
  } catch (err) {
    return fail(`cannot read the file (${codeOf(err)})`);
  } finally {
    await handle.close();
  }
}

/**
 * {@link readConfigFile} without waiting for the thread pool: for many small files read one after the
 * other (a scoped plan's store files read for their identity alone), where the four round trips of
 * each asynchronous read cost more than the read itself. The same checks, the same results.
 */
export function readConfigFileSync(path: string, maxBytes: number): ReadResult {
  let fd;
  try {
    fd = openSync(path, FLAGS);
  } catch (err) {
    return notOpened(err);
  }
  try {
    const stat = fstatSync(fd);
    const refused = refusal(stat, maxBytes);
    if (refused) return refused;
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    return decoded(buffer, length, maxBytes);
  } catch (err) {
    return fail(`cannot read the file (${codeOf(err)})`);
  } finally {
    closeSync(fd);
  }
}

/** Opened without blocking: a FIFO or a device must not hang the run. */
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

const fail = (message: string, line = 0, col = 0): ReadResult => ({ ok: false, line, col, message });

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code ?? "error";

/** Why a file could not be opened. */
function notOpened(err: unknown): ReadResult {
  const code = codeOf(err);
  return fail(code === "ENOENT" ? "the file does not exist" : `cannot read the file (${code})`);
}

/** Why an opened file is not read: not a regular file, or larger than the limit. */
function refusal(stat: Stats, maxBytes: number): ReadResult | undefined {
  if (!stat.isFile()) return fail("is not a regular file: name only regular files in the configuration");
  if (stat.size > maxBytes)
    return fail(
      `the file is ${stat.size} bytes, more than the limit of ${maxBytes}; it was not read ` +
        `(split it, or raise limits.max_file_bytes in carte.yaml)`,
    );
  return undefined;
}

/** The text of the `length` bytes read, or why not: grown past the limit, not UTF-8. */
function decoded(buffer: Buffer, length: number, maxBytes: number): ReadResult {
  if (length > maxBytes)
    return fail(`the file grew past the limit of ${maxBytes} bytes while being read; it was not read`);
  const bytes = buffer.subarray(0, length);
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    const { line, col } = invalidUtf8Position(bytes);
    return fail(
      "the file is not valid UTF-8 text (Latin-1 or another encoding?): save it as UTF-8",
      line,
      col,
    );
  }
}

/** Length of a UTF-8 sequence from its lead byte and whether its continuation bytes are valid. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  if (b < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => {
    const c = bytes[i + k];
    return c !== undefined && c >= lo && c <= hi;
  };
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0; // no surrogates
  if (b === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b >= 0xf1 && b <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** The 1-based line and column (in characters) of the first byte that is not valid UTF-8. */
export function invalidUtf8Position(bytes: Uint8Array): { line: number; col: number } {
  let line = 1;
  let col = 1;
  for (let i = 0; i < bytes.length;) {
    const n = sequenceLength(bytes, i);
    if (n === 0) return { line, col };
    if (bytes[i] === 0x0a) {
      line++;
      col = 1;
    } else if (!(i === 0 && n === 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)) col++;
    i += n;
  }
  return { line, col };
}
