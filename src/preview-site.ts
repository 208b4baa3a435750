/**
 * Writing the menu preview of a plan (docs/preview.md): the one library path under `carte preview`
 * (src/cli/preview.ts) and the GitHub Action's preview artifact (src/action/preview-artifact.ts). It picks
 * the stores to show, renders each page (src/render/menu-pages.ts, pure) and writes it at once through the
 * safe writes of src/atomic.ts, in pieces of at most {@link WRITE_CHARS} characters, never as one text, so
 * that a preview of a thousand stores never holds every page in memory, nor one page as one text, then
 * the index, last, so that it links only to pages written (a failed write takes the pages back: {@link
 * writePreview}), and removes the pages an earlier preview wrote in the folder for stores not shown now: only
 * those its list ({@link PREVIEW_LIST}) names, never a file it did not write.
 */

import path from "node:path";
import {
  SHARED_DIR_MODE,
  SHARED_FILE_MODE,
  readOwnFileSync,
  removeFile,
  shownPath,
  writeFileAtomic,
  type WriteTarget,
} from "./atomic.js";
import { FileWriteError } from "./errors.js";
import type { LoadedProject } from "./config/index.js";
import type { StoreState } from "./model.js";
import type { Plan, ResourceChange } from "./plan/types.js";
import { platformImageHosts, renderIndex, storeFileName, storePageParts } from "./render/menu-pages.js";

/**
 * Which stores a preview shows: `all` the plan's stores; `changed` those with at least one change
 * (counted in {@link PreviewOptions.changes} when given, else in the plan).
 */
export type PreviewSelection = "all" | "changed";

/** What {@link writePreview} writes, and where. */
export interface PreviewOptions {
  /** The plan: its stores and changes. */
  plan: Plan;
  /** The project the plan was made from: the desired state of what the plan leaves as it is. */
  project: Pick<LoadedProject, "desired">;
  /** The folder of the site (absolute, or relative to the working directory). */
  out: string;
  /** The folder no write may leave (src/atomic.ts `WriteTarget.root`): `out` or a folder above it. */
  root: string;
  /** Default `all`. */
  select?: PreviewSelection | undefined;
  /**
   * With `select: "changed"`: the addresses of the changes that count (a pull request's own, apart from
   * drift: src/gitops/base.ts `BaseSplit.changes`); default every change of the plan.
   */
  changes?: readonly string[] | undefined;
}

/** What a preview wrote. */
export interface WrittenPreview {
  /** The absolute path of `index.html`. */
  index: string;
  /** Every file written, absolute, `index.html` first. */
  files: string[];
  /** The stores shown (a page each), in the plan's order. */
  stores: number;
  /** The changes of those stores. */
  changes: number;
  /** The bytes written, all files together (UTF-8). */
  bytes: number;
}

/**
 * The plan as the preview shows it: its stores limited to the selection, and its changes to those of
 * the stores kept (so that the index counts what it lists). The plan itself is left as it is.
 */
export function previewPlan(plan: Plan, select: PreviewSelection = "all", changes?: readonly string[]): Plan {
  if (select === "all") return plan;
  const counted = changes === undefined ? undefined : new Set(changes);
  const changed = new Set(
    plan.changes.filter((c) => counted === undefined || counted.has(c.address)).map((c) => c.store),
  );
  // The plan's own properties as they are (a spread would read its `checksums`, which a plan made
  // without them refuses), its stores and changes narrowed.
  return Object.create(Object.getPrototypeOf(plan) as object | null, {
    ...Object.getOwnPropertyDescriptors(plan),
    stores: { value: plan.stores.filter((s) => changed.has(s.key)), enumerable: true },
    changes: { value: plan.changes.filter((c) => changed.has(c.store)), enumerable: true },
  }) as Plan;
}

/**
 * The most characters of a page given to the file at once: the pieces of a page (src/render/menu-pages.ts
 * `storePageParts`) are written together up to it. Below V8's large-object size (128 KiB) even at two
 * bytes a character, so that the texts written are young objects, collected as soon as they are written.
 */
export const WRITE_CHARS = 32 * 1024;

/**
 * `pieces` as texts of at most {@link WRITE_CHARS} characters, in order: pieces joined up to it, a piece
 * longer than it cut (never inside a surrogate pair). `bytes.n` counts their UTF-8 bytes as they are
 * given out.
 */
export function* writeBatches(pieces: readonly string[], bytes: { n: number }): Generator<string> {
  let batch: string[] = [];
  let size = 0;
  const flush = (): string => {
    const text = batch.join("");
    batch = [];
    size = 0;
    bytes.n += Buffer.byteLength(text, "utf8");
    return text;
  };
  for (const piece of pieces) {
    if (size > 0 && size + piece.length > WRITE_CHARS) yield flush();
    if (piece.length > WRITE_CHARS) {
      // A surrogate pair is never cut: the cut moves one back when it would fall inside one.
      for (let at = 0; at < piece.length;) {
        let end = Math.min(at + WRITE_CHARS, piece.length);
        const code = piece.charCodeAt(end - 1);
        if (end < piece.length && code >= 0xd800 && code <= 0xdbff) end--;
        batch.push(piece.slice(at, end));
        size = end - at;
        at = end;
        if (at < piece.length) yield flush();
      }
    } else {
      batch.push(piece);
      size += piece.length;
    }
  }
  if (size > 0) yield flush();
}

/**
 * The plan with other changes, its own properties as they are (a spread would read its `checksums`,
 * which a plan made without them refuses).
 */
function withChanges(plan: Plan, changes: readonly ResourceChange[]): Plan {
  return Object.create(Object.getPrototypeOf(plan) as object | null, {
    ...Object.getOwnPropertyDescriptors(plan),
    changes: { value: changes, enumerable: true },
  }) as Plan;
}

/**
 * The file in a preview's folder that lists the store pages the preview wrote (`stores/<file>.html`), so
 * that the next preview in the folder removes those of stores it no longer shows, and nothing else: the
 * folder may hold files of the user's, pages named like a store's included.
 */
export const PREVIEW_LIST = ".carte-preview.json";

/** The most bytes of {@link PREVIEW_LIST} read: 100,000 names of about 100 characters. */
const MAX_LIST_BYTES = 16 * 1024 * 1024;

/** A name {@link storeFileName} gives: anything else in the list is never removed. */
const PAGE_NAME = /^[a-z0-9_-]{1,120}\.html$/;

/**
 * The store pages an earlier preview listed in `out` ({@link PREVIEW_LIST}), by file name: only names a
 * page of carte's can have. No list, or one that is not a regular file (a link, a FIFO), too large, or
 * not of the list's shape: none (nothing is removed). Never fails.
 */
async function earlierPages(out: string): Promise<Set<string>> {
  const pages = new Set<string>();
  // No earlier preview here (or no list of carte's): nothing to remove.
  const bytes = readOwnFileSync(path.join(out, PREVIEW_LIST), MAX_LIST_BYTES);
  if (bytes === undefined) return pages;
  try {
    const data: unknown = JSON.parse(bytes.toString("utf8"));
    const names = typeof data === "object" && data !== null ? (data as { pages?: unknown }).pages : undefined;
    if (Array.isArray(names))
      for (const name of names) if (typeof name === "string" && PAGE_NAME.test(name)) pages.add(name);
  } catch {
    // A list that cannot be parsed names nothing: no page is removed.
  }
  return pages;
}

/** Writes the list of the store pages of `out` ({@link PREVIEW_LIST}). */
async function writePageList(out: string, names: Iterable<string>, root: string): Promise<void> {
  const list = {
    about:
      "The pages carte preview wrote in stores/: a later preview removes those of stores it no longer shows, and no other file.",
    pages: [...names].sort(),
  };
  await writeFileAtomic(path.join(out, PREVIEW_LIST), JSON.stringify(list, null, 2) + "\n", {
    root,
    purpose: "write the preview's list of pages to",
    mode: SHARED_FILE_MODE,
    dirMode: SHARED_DIR_MODE,
    durable: false,
  });
}

/**
 * Removes the pages an earlier preview wrote in `out` ({@link earlierPages}) for stores this one has not
 * (a store out of scope now, or gone), through the safe removal of src/atomic.ts.
 */
async function removeStalePages(
  out: string,
  earlier: ReadonlySet<string>,
  written: ReadonlySet<string>,
  root: string,
): Promise<void> {
  for (const name of earlier) {
    if (!written.has(name)) {
      await removeFile(path.join(out, "stores", name), { root, purpose: "remove an earlier preview's page" });
    }
  }
}

/**
 * `err`, the failure of a page's or the index's write (or of a page's rendering), once the pages this
 * preview wrote before it and the folder's `index.html` (an earlier preview's, which would link to
 * pages replaced or removed) are removed again: no index is left that links to a page that is not
 * there. A write's failure says so in its message; any other error is returned as it is.
 */
async function takenBack(
  err: unknown,
  written: readonly string[],
  index: string,
  target: WriteTarget,
): Promise<unknown> {
  const left: string[] = [];
  for (const file of [index, ...written]) {
    try {
      await removeFile(file, { ...target, purpose: "remove again" });
    } catch {
      left.push(shownPath(file));
    }
  }
  if (!(err instanceof FileWriteError)) return err;
  const pages = written.length === 1 ? "the page" : `the ${written.length} pages`;
  const note =
    (left.includes(shownPath(index))
      ? ""
      : "; no index.html is left (it would link to pages that are not there)") +
    (written.length > 0
      ? `, and ${pages} written before it ${written.length === 1 ? "was" : "were"} removed again`
      : "") +
    (left.length > 0 ? `; remove by hand what could not be removed: ${left.join(", ")}` : "") +
    ": run carte preview again once there is room";
  return err.withNote(note);
}

/**
 * Writes the preview site of `plan` into `out`: `stores/<file>.html` for each store selected
 * (src/render/menu-pages.ts `storeFileName`), one page rendered and written at a time, then `index.html`,
 * last, so that the index links only to pages written. When a write fails (a full disk), the pages
 * this call wrote and the folder's index are removed again ({@link takenBack}); an earlier preview's
 * pages of other stores stay listed for the next preview to remove.
 *
 * @throws FileWriteError (src/errors.ts, from src/atomic.ts) when a path would leave `root` or a write
 *   fails, in words, saying what was removed again.
 */
export async function writePreview(options: PreviewOptions): Promise<WrittenPreview> {
  const plan = previewPlan(options.plan, options.select, options.changes);
  const out = path.resolve(options.out);
  const target = {
    root: options.root,
    purpose: "write the preview to",
    mode: SHARED_FILE_MODE,
    dirMode: SHARED_DIR_MODE,
    // A preview is made again by running the command again: no flush to the disk per page.
    durable: false,
  };
  const index = path.join(out, "index.html");
  const pages: string[] = [];
  const bytes = { n: 0 };
  const write = async (file: string, html: readonly string[]) => {
    const before = bytes.n;
    try {
      await writeFileAtomic(file, writeBatches(html, bytes), target);
    } catch (err) {
      bytes.n = before;
      throw err;
    }
  };
  const earlier = await earlierPages(out);
  const names = new Set(plan.stores.map((s) => storeFileName(s.key)));
  // Listed before they are written: a run stopped half-way leaves no page of carte's unlisted.
  await writePageList(out, new Set([...earlier, ...names]), options.root);
  const desired = options.project.desired.stores;
  const states = new Map<string, StoreState | undefined>(
    plan.stores.map((s) => [s.key, Object.hasOwn(desired, s.key) ? desired[s.key] : undefined]),
  );
  // The image hosts of the whole site: a new store's photos on the platform's host are drawn too.
  const imageHosts = platformImageHosts(plan, states);
  // Each store's changes, gathered once: a page given the whole plan would look through every
  // store's changes (millions in a plan from empty of thousands of stores) for its own.
  const byStore = new Map<string, ResourceChange[]>();
  for (const c of plan.changes) {
    const list = byStore.get(c.store);
    if (list) list.push(c);
    else byStore.set(c.store, [c]);
  }
  try {
    for (const store of plan.stores) {
      const page = path.join(out, "stores", storeFileName(store.key));
      const own = withChanges(plan, byStore.get(store.key) ?? []);
      await write(page, storePageParts(own, store, states.get(store.key), imageHosts));
      pages.push(page);
    }
    await write(index, [renderIndex(plan)]);
  } catch (err) {
    throw await takenBack(err, pages, index, target);
  }
  await removeStalePages(out, earlier, names, options.root);
  await writePageList(out, names, options.root);
  return {
    index,
    files: [index, ...pages],
    stores: plan.stores.length,
    changes: plan.changes.length,
    bytes: bytes.n,
  };
}
