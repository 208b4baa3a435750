/**
 * Parsing a big JSON answer from its UTF-8 bytes in pieces, without ever making it one string.
 *
 * `JSON.parse` wants one flat string: a store menu of hundreds of kilobytes decoded chunk by chunk is
 * joined into one when it is parsed, and a string that large is a large object of the JavaScript heap,
 * placed in memory of its own that the system maps afresh for each answer (on the project's machine
 * that costs about as much as parsing the answer). {@link parseJsonPieces} reads an answer that is an
 * object instead as its outline (the object with each long array emptied) and those arrays' elements in
 * batches of about {@link BATCH_BYTES}, each a string small enough for the young generation.
 *
 * The value is the one `JSON.parse` gives of the whole text, for every answer it accepts: the outline
 * and every batch are parsed by `JSON.parse` itself, so a text that is not JSON fails one of them, and
 * the arrays are put back in their places. It declines (undefined) what it does not handle: a body that
 * is not an object, one with the same top-level name twice, one that is not JSON; the caller then
 * parses the text, which gives the same value or says what is wrong with it.
 */

/** Bodies shorter than this many bytes are parsed as one string: they are young-generation strings. */
export const PIECES_MIN_BYTES = 128 * 1024;

/**
 * The length in bytes of a batch of array elements parsed at once (a batch ends at the first element
 * boundary past it): under the heap's size for objects of the young generation (128 KB).
 */
const BATCH_BYTES = 32 * 1024;

/** The largest body copied into {@link pool}; a larger one gets a buffer of its own. */
const POOL_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The buffer a body's chunks are copied into, reused from answer to answer: memory the process has just
 * used costs a fraction of fresh memory. Parsing is synchronous, so one buffer serves every call.
 */
let pool: Buffer | undefined;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Whether a byte is JSON whitespace (RFC 8259 §2: space, tab, line feed, carriage return). */
function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** An array of the top-level object long enough to be parsed in batches. */
interface Cut {
  /** The name it has in the object. */
  key: string;
  /** The offset of its first element (after `[`). */
  start: number;
  /** Offsets of the commas between its elements where a batch ends. */
  splits: number[];
  /** Where the current batch began. */
  batchStart: number;
  /** The offset of its closing `]`. */
  end: number;
}

/** The body's chunks as one buffer: the chunk itself when there is one, else a copy into {@link pool}. */
function bytesOf(chunks: readonly Uint8Array[], size: number): Buffer {
  if (chunks.length === 1) {
    const c = chunks[0]!;
    return Buffer.from(c.buffer, c.byteOffset, c.byteLength);
  }
  let buffer: Buffer;
  if (size > POOL_MAX_BYTES) buffer = Buffer.allocUnsafe(size);
  else {
    if (pool === undefined || pool.length < size)
      pool = Buffer.allocUnsafeSlow(Math.min(POOL_MAX_BYTES, Math.max(size, 2 * (pool?.length ?? 0))));
    buffer = pool;
  }
  let at = 0;
  for (const c of chunks) {
    buffer.set(c, at);
    at += c.byteLength;
  }
  return buffer;
}

/**
 * The JSON value of a body received as UTF-8 chunks, parsed in pieces when it is an object of at least
 * {@link PIECES_MIN_BYTES} bytes (see the module's comment); undefined when the body is shorter, not an
 * object, names a member twice at its top level, or is not JSON: the caller then parses its text. The
 * value is then the one `JSON.parse` gives of the text, member order included. Never throws for what
 * the body holds.
 */
export function parseJsonPieces(chunks: readonly Uint8Array[]): { value: unknown } | undefined {
  let size = 0;
  for (const c of chunks) size += c.byteLength;
  if (size < PIECES_MIN_BYTES) return undefined;
  const bytes = bytesOf(chunks, size);
  try {
    return parseObject(bytes, size);
  } catch (err) {
    // Not JSON: the caller's parse of the text says where.
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

/**
 * Parses `b[0, n)` as a top-level object (see {@link parseJsonPieces}). Throws the SyntaxError of a
 * piece that is not JSON.
 */
function parseObject(b: Buffer, n: number): { value: unknown } | undefined {
  let i = 0;
  while (isSpace(b[i])) i++;
  if (b[i] !== OPEN_OBJECT) return undefined;
  const keys = new Set<string>();
  const cuts: Cut[] = [];
  /** The outline: the text with the interiors of the cut arrays left out. */
  const outline: string[] = [];
  let outlineFrom = 0;
  let depth = 0;
  let key: string | undefined;
  let open: Cut | undefined;
  for (; i < n; i++) {
    const c = b[i]!;
    if (c === QUOTE) {
      const start = i;
      for (i++; i < n; i++) {
        const d = b[i]!;
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      if (depth === 1) {
        // A member's name when a colon follows it: a name met twice is left to the whole text's parse,
        // which keeps the last value where this would keep the arrays.
        let j = i + 1;
        while (isSpace(b[j])) j++;
        if (b[j] === COLON) {
          key = JSON.parse(b.toString("utf8", start, i + 1)) as string;
          if (keys.has(key)) return undefined;
          keys.add(key);
        }
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (depth === 2 && c === OPEN_ARRAY && key !== undefined) {
        open = { key, start: i + 1, splits: [], batchStart: i + 1, end: 0 };
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 2 && open !== undefined) {
        if (c === CLOSE_ARRAY && i - open.start > BATCH_BYTES) {
          open.end = i;
          outline.push(b.toString("utf8", outlineFrom, open.start));
          outlineFrom = i;
          cuts.push(open);
        }
        open = undefined;
      }
      depth--;
      if (depth === 0) break;
    } else if (c === COMMA && depth === 2 && open !== undefined && i - open.batchStart > BATCH_BYTES) {
      open.splits.push(i);
      open.batchStart = i + 1;
    }
  }
  if (cuts.length === 0) return undefined;
  outline.push(b.toString("utf8", outlineFrom, n));
  const value = JSON.parse(outline.join("")) as Record<string, unknown>;
  for (const cut of cuts) {
    if (!Object.hasOwn(value, cut.key)) return undefined;
    let elements: unknown[] | undefined;
    let from = cut.start;
    for (const to of [...cut.splits, cut.end]) {
      const batch = JSON.parse(`[${b.toString("utf8", from, to)}]`) as unknown[];
      // An empty batch between commas is an element missing (`[1,]`, `[,1]`): not JSON.
      if (batch.length === 0) return undefined;
      if (elements === undefined) elements = batch;
      else for (const e of batch) elements.push(e);
      from = to + 1;
    }
    // The member is the outline's own (its empty array): defined in place, `__proto__` included.
    Object.defineProperty(value, cut.key, {
      value: elements,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return { value };
}
