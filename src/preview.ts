/**
 * Writing the menu preview of a plan (docs/preview.md): the one library path under `carte preview`
 * (src/cli/preview.ts) and the GitHub Action's preview artifact (src/action/preview.ts). It picks the
 * stores to show, renders each page (src/render/preview.ts, pure) and writes it at once through the
 * safe writes of src/atomic.ts, so that a preview of a thousand stores never holds every page in
 * memory, and removes the pages an earlier preview left in the folder for stores not shown now.
 */

import { readdir } from "node:fs/promises";
import path from "node:path";
import { SHARED_DIR_MODE, SHARED_FILE_MODE, removeFile, writeFileAtomic } from "./atomic.js";
import type { LoadedProject } from "./config/index.js";
import type { StoreState } from "./model.js";
import type { Plan } from "./plan/types.js";
import { renderIndex, renderStorePage, storeFileName } from "./render/preview.js";

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
 * Removes the pages an earlier preview wrote in `dir` for stores this one has not (a store out of scope
 * now, or gone): only `.html` files, through the safe removal of src/atomic.ts.
 */
async function removeStalePages(dir: string, written: ReadonlySet<string>, root: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return; // No earlier preview: nothing to remove.
  }
  for (const name of names) {
    if (name.endsWith(".html") && !written.has(name)) {
      await removeFile(path.join(dir, name), { root, purpose: "remove an earlier preview's page" });
    }
  }
}

/**
 * Writes the preview site of `plan` into `out`: `index.html` and `stores/<file>.html` for each store
 * selected (src/render/preview.ts `storeFileName`), one page rendered and written at a time.
 *
 * @throws FileWriteError (src/errors.ts, from src/atomic.ts) when a path would leave `root` or a write fails, in words.
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
  const files: string[] = [];
  let bytes = 0;
  const write = async (file: string, html: string) => {
    await writeFileAtomic(file, html, target);
    files.push(file);
    bytes += Buffer.byteLength(html, "utf8");
  };
  await write(path.join(out, "index.html"), renderIndex(plan));
  const desired = options.project.desired.stores;
  const names = new Set<string>();
  for (const store of plan.stores) {
    const state: StoreState | undefined = Object.hasOwn(desired, store.key) ? desired[store.key] : undefined;
    const name = storeFileName(store.key);
    names.add(name);
    await write(path.join(out, "stores", name), renderStorePage(plan, store, state));
  }
  await removeStalePages(path.join(out, "stores"), names, options.root);
  return { index: files[0]!, files, stores: plan.stores.length, changes: plan.changes.length, bytes };
}
