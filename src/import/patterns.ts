/** Which written files a project's carte.yaml picks up with its `stores:` and `catalogs:` patterns. */

import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { globFiles } from "../config/glob.js";
import type { ImportFile } from "./round-trip.js";

/**
 * The written files that an existing carte.yaml does not pick up with its `stores:` and `catalogs:`
 * patterns (relative to the output folder). Unreadable patterns count as picking up nothing.
 */
export async function filesNotInProject(
  configFile: string,
  files: readonly ImportFile[],
): Promise<ImportFile[]> {
  const root = path.dirname(configFile);
  let data: Record<string, unknown> = {};
  try {
    // logLevel silent: no Node warning reaches the user (loadProject reports such keys, located).
    const parsed: unknown = parse(await readFile(configFile, "utf8"), { logLevel: "silent" });
    if (parsed && typeof parsed === "object") data = parsed as Record<string, unknown>;
  } catch {
    data = {};
  }
  const matched = new Set<string>();
  for (const key of ["stores", "catalogs"]) {
    const value = data[key];
    const patterns = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
    for (const p of patterns) {
      if (typeof p !== "string" || p === "") continue;
      for (const f of await globFiles(p, root)) matched.add(path.resolve(f));
    }
  }
  return files.filter((f) => f.kind !== "project" && !matched.has(path.resolve(root, f.path)));
}
