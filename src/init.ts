/**
 * `carte init [DIR]`: a minimal project that `carte validate` accepts — carte.yaml, one catalog and
 * one store — each file starting with a `# yaml-language-server: $schema=…` line that points at carte's
 * own schemas (schemas/config/), so that editors with the YAML language server validate and complete
 * the files as they are typed. Existing files are never overwritten.
 */

import { lstat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  checkWritable,
  SHARED_DIR_MODE,
  SHARED_FILE_MODE,
  writeFailure,
  writeFileSet,
  type WriteTarget,
} from "./atomic.js";
import { UsageError } from "./errors.js";

/** The folder of carte's configuration schemas, in this installation (a checkout or node_modules/carte). */
export const CONFIG_SCHEMAS_DIR = fileURLToPath(new URL("../schemas/config/", import.meta.url));

/** What {@link initProject} did, paths relative to the project folder. */
export interface InitResult {
  /** The project folder, absolute. */
  dir: string;
  /** Files written. */
  written: string[];
  /** Files that existed already and were left as they were. */
  kept: string[];
}

/**
 * The `$schema` reference of a file at `file` to the schema `schema` (e.g. `store.schema.json`):
 * relative to the file's folder, with forward slashes, or a `file://` address when no relative path
 * leads there (another drive).
 */
export function schemaReference(file: string, schema: string): string {
  const target = path.join(CONFIG_SCHEMAS_DIR, schema);
  const rel = path.relative(path.dirname(file), target);
  if (path.isAbsolute(rel)) return new URL(`file://${target}`).href;
  return rel.split(path.sep).join("/");
}

/** The files of a new project: relative path → schema file name and content (after the schema line). */
const FILES: readonly { file: string; schema: string; text: string }[] = [
  {
    file: "carte.yaml",
    schema: "project.schema.json",
    text: `# The project file of carte (docs/configuration.md lists every key).
#
# No \`platform:\` section: carte runs its embedded emulator (state in .carte/ next to this file), so
# \`carte plan\` and \`carte apply\` are safe to try. To manage real stores, add
#   platform:
#     base_url: https://<the address your account manager gave you>
# and set CARTE_CLIENT_ID and CARTE_CLIENT_SECRET in the environment (never in this file).
version: 1
# ISO 4217: prices are written as the currency is written (12.50 for USD).
currency: USD
stores: stores/*.yaml
catalogs: catalogs/*.yaml
`,
  },
  {
    file: "catalogs/main.yaml",
    schema: "catalog.schema.json",
    text: `# A catalog: items, modifier groups, categories (ordered items) and menus (ordered categories).
name: main

items:
  - sku: FIRST-ITEM
    title: First item
    price: 10.50

categories:
  - sku: MAIN
    title: Main
    items: [FIRST-ITEM]

menus:
  - type: DEFAULT
    categories: [MAIN]
`,
  },
  {
    file: "stores/first-store.yaml",
    schema: "store.schema.json",
    text: `# A store: who it is on the platform, the catalog it sells, and what differs from that catalog here.
store:
  id: 1
  integration_id: first-store
  name: First store

catalog: main

hours:
  mon-sun: ["09:00-21:00"]
`,
  },
];

/**
 * Writes a minimal project into `dir` (created when missing), keeping any file that exists.
 *
 * @throws {@link UsageError} when `dir` already holds a carte.yaml (a project is there: nothing is
 *   written) or is not a folder.
 * @throws `FileWriteError` (src/errors.ts) when a file or a folder on the way is a link or not what it should
 *   be (nothing is written then), or a file cannot be written (naming it and the cause; the files written
 *   before it are removed again, and carte.yaml, written last, is never left naming a missing file).
 */
export async function initProject(dir: string): Promise<InitResult> {
  const root = path.resolve(dir);
  const target: WriteTarget = { root, purpose: "write the new project's file" };
  const info = await lstat(root).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw writeFailure(root, { ...target, purpose: "make the project folder" }, err);
  });
  if (info && !info.isDirectory()) throw new UsageError(`${dir} exists and is not a folder`);
  if (info && (await lstat(path.join(root, "carte.yaml")).catch(() => undefined))) {
    throw new UsageError(
      `${path.join(dir, "carte.yaml")} exists: a project is there already, and carte init never overwrites a file`,
    );
  }
  const result: InitResult = { dir: root, written: [], kept: [] };
  // A link in place of a file or a folder (`catalogs -> /elsewhere`) refuses the whole project before
  // its first file is written.
  for (const f of FILES) await checkWritable(path.join(root, f.file), target);
  // carte.yaml last, and all or none (a full disk): never a carte.yaml naming files that are not there.
  const ordered = [
    ...FILES.filter((f) => f.file !== "carte.yaml"),
    ...FILES.filter((f) => f.file === "carte.yaml"),
  ];
  const written = await writeFileSet(
    ordered.map((f) => {
      const file = path.join(root, f.file);
      return {
        file,
        data: `# yaml-language-server: $schema=${schemaReference(file, f.schema)}\n${f.text}`,
        // Never overwritten: a file there (made meanwhile too) is kept as it is; never through a link.
        options: { ...target, overwrite: false, mode: SHARED_FILE_MODE, dirMode: SHARED_DIR_MODE },
      };
    }),
  );
  for (const f of FILES) (written[ordered.indexOf(f)] ? result.written : result.kept).push(f.file);
  return result;
}
