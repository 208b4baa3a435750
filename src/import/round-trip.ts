/**
 * Proof that the files an import writes load and give back the imported state: they are written to a
 * scratch folder and loaded exactly as `carte plan` loads them (src/config/load.ts: schema, rules
 * between files, settings, resolution), and every store must come out as it was imported, kind by kind.
 * A failure here is a bug of carte import, never the user's.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeFailure, writeFileAtomic } from "../atomic.js";
import { loadProject } from "../config/load.js";
import { ConfigError, formatProblem } from "../errors.js";
import type { FileKind } from "../config/validate.js";
import type { StoreState } from "../model.js";
import { differingKinds } from "./factor.js";
import { importParts } from "./parts.js";
import type { ImportPart } from "../kinds/import-types.js";

/** A file to write: its path relative to the output folder, and its text. */
export interface ImportFile {
  path: string;
  text: string;
  kind: FileKind;
}

/** The carte.yaml used to load the files when the import writes none. */
const SCRATCH_PROJECT = "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";

/**
 * Loads written texts and compares them with the states they must give.
 *
 * @param files - the catalog and store files (and carte.yaml when written).
 * @param states - the sanitized states, by store key.
 * @param platforms - for a project of several platforms (carte.yaml `platforms:`): each platform's
 *   name and the keys of its stores; the files are loaded once per platform, as `carte plan` loads them
 *   for it, and each load must give exactly the states of that platform's stores.
 * @returns one message per problem; empty when the files load and give exactly `states`.
 */
export async function verifyFiles(
  files: readonly ImportFile[],
  states: Record<string, StoreState>,
  parts: readonly ImportPart[] = importParts,
  platforms?: readonly { name: string; stores: readonly string[] }[],
): Promise<string[]> {
  const scratchDir = path.join(tmpdir(), "carte-import-check-");
  const dir = await mkdtemp(scratchDir).catch((err: unknown) => {
    throw writeFailure(scratchDir, { root: tmpdir(), purpose: "make a scratch folder" }, err);
  });
  try {
    const all = files.some((f) => f.kind === "project")
      ? files
      : [
          ...files,
          {
            path: "carte.yaml",
            text: SCRATCH_PROJECT + (files.some((f) => f.kind === "group") ? "groups: groups/*.yaml\n" : ""),
            kind: "project" as const,
          },
        ];
    // A scratch copy, thrown away after the check: written under its folder (a file name the
    // platform shaped cannot leave it), without fsync.
    const scratch = { root: dir, purpose: "write a scratch copy of", durable: false };
    for (const f of all) await writeFileAtomic(path.join(dir, f.path), f.text, scratch);
    if (!platforms) return await compareLoad(path.join(dir, "carte.yaml"), states, parts);
    const out: string[] = [];
    for (const p of platforms) {
      const own = Object.fromEntries(p.stores.flatMap((k) => (states[k] ? [[k, states[k]]] : [])));
      const found = await compareLoad(path.join(dir, "carte.yaml"), own, parts, p.name);
      out.push(...found.map((m) => `platform ${p.name}: ${m}`));
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Loads a project as `carte plan` does (scoped to one platform of carte.yaml `platforms:` when `platform`
 * is given) and compares its stores with `states`.
 */
async function compareLoad(
  config: string,
  states: Record<string, StoreState>,
  parts: readonly ImportPart[],
  platform?: string,
): Promise<string[]> {
  let desired;
  try {
    desired = (await loadProject(config, platform === undefined ? {} : { platform: { name: platform } }))
      .desired;
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(formatProblem);
    throw err;
  }
  const out: string[] = [];
  for (const [key, expected] of Object.entries(states)) {
    const got = desired.stores[key];
    if (!got) out.push(`store ${key}: no file was written`);
    else {
      const differ = differingKinds(got, expected, parts);
      if (differ.length > 0)
        out.push(`stores/${key}.yaml: gives other ${differ.join(", ")} than the platform has`);
    }
  }
  for (const key of Object.keys(desired.stores))
    if (!states[key]) out.push(`stores/${key}.yaml: store ${key} was not imported`);
  return out;
}
