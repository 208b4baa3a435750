/**
 * Canary rollout: carte.yaml `rollout:` names ordered stages, each a store file
 * pattern or a list of patterns and file names, relative to carte.yaml:
 *
 * ```yaml
 * rollout:
 *   canary: [stores/bog-centro.yaml]
 *   rest: "*"
 * ```
 *
 * Resolution rules (docs/configuration.md, "Canary rollout"):
 * - the stages keep the order they are written in. Stage names must start with a letter (the schema's
 *   `propertyNames`), so none is an integer-like key that JavaScript would move ahead of the others, and
 *   the yaml parser refuses a key written twice: the order of the parsed mapping is the file's order;
 * - patterns match the project's store files (those `stores:` lists) with the same glob syntax as
 *   `stores:`; `"*"` alone means every store file. A plain file name that is not a store file of the
 *   project, or a pattern that matches none, is a located problem;
 * - a store named by two stages belongs to the first one (`rest: "*"` after `canary:` is the usual way
 *   to say "all the others");
 * - a stage left without a store (everything it names is in an earlier stage) is a problem, and so is a
 *   store in no stage: there is no implicit last stage.
 */

import { resolve } from "node:path";
import type { ConfigProblem } from "../errors.js";
import { globFiles, hasMagic } from "./glob.js";
import { outsideMessage, patternStaysInside } from "./paths.js";
import { isRecord, quote, report, siteOf } from "../source/problems.js";
import type { YamlFile } from "../source/yaml.js";

/** One stage of a rollout, as loaded. */
export interface RolloutStage {
  /** The stage's name (a key of `rollout:`), e.g. `canary`. */
  name: string;
  /** Keys (integration ids) of the stores of the stage, in the order of the store files. */
  stores: string[];
}

/** The pattern that names every store file of the project. */
export const EVERY_STORE = "*";

/** A store file of the project: its absolute path and its key, when the file gave one. */
export interface StoreFileKey {
  path: string;
  key: string | undefined;
}

/**
 * Resolves carte.yaml `rollout:` into ordered stages of store keys (see the module comment), reporting
 * every problem located in carte.yaml.
 *
 * @param project - carte.yaml, parsed.
 * @param root - the folder of carte.yaml (absolute); patterns are relative to it and must stay inside.
 * @param storeFiles - the project's store files in order, with each file's integration id.
 * @param problems - where problems are added.
 * @returns the stages, or `undefined` when carte.yaml has no `rollout:` (or one the schema refused).
 */
export async function readRollout(
  project: YamlFile,
  root: string,
  storeFiles: readonly StoreFileKey[],
  problems: ConfigProblem[],
): Promise<RolloutStage[] | undefined> {
  const data = project.data;
  const value = isRecord(data) && Object.hasOwn(data, "rollout") ? data.rollout : undefined;
  // The schema says how to write it; nothing more to check on a value of another shape.
  if (!isRecord(value)) return undefined;
  const indexOf = new Map(storeFiles.map((f, i) => [f.path, i]));
  const stageOf = new Map<number, string>();
  const stages: RolloutStage[] = [];
  for (const [name, entry] of Object.entries(value)) {
    if (!/^[a-z][a-z0-9_-]{0,39}$/.test(name)) return undefined; // the schema reports it
    const patterns: { pattern: string; segments: (string | number)[] }[] =
      typeof entry === "string"
        ? [{ pattern: entry, segments: ["rollout", name] }]
        : Array.isArray(entry)
          ? entry.flatMap((p, i) =>
              typeof p === "string" ? [{ pattern: p, segments: ["rollout", name, i] }] : [],
            )
          : [];
    const named = new Set<number>();
    for (const { pattern, segments } of patterns) {
      if (pattern === "") continue; // the schema reports it
      const site = siteOf(project, segments);
      for (const i of await matchStores(pattern, root, indexOf, storeFiles.length, (message) =>
        report(problems, site, `rollout.${name}: ${message}`),
      ))
        named.add(i);
    }
    const own = [...named].filter((i) => !stageOf.has(i)).sort((a, b) => a - b);
    for (const i of own) stageOf.set(i, name);
    if (named.size > 0 && own.length === 0) {
      report(
        problems,
        siteOf(project, ["rollout", name]),
        `rollout.${name}: every store this stage names is in an earlier stage (a store belongs to the first stage that names it), so the stage would be empty; remove it or name other stores`,
        "key",
      );
    }
    stages.push({
      name,
      stores: own.flatMap((i) => {
        const key = storeFiles[i]!.key;
        return key === undefined ? [] : [key];
      }),
    });
  }
  const missing = storeFiles.filter((_, i) => !stageOf.has(i));
  if (stages.length > 0 && missing.length > 0) {
    const keys = missing.map((f) => quote(f.key ?? f.path, 60));
    report(
      problems,
      siteOf(project, ["rollout"]),
      `rollout: ${missing.length} store${missing.length === 1 ? " is" : "s are"} in no stage ` +
        `(${keys.slice(0, 5).join(", ")}${keys.length > 5 ? `, and ${keys.length - 5} more` : ""}); ` +
        `every store must be in a stage: end the rollout with a stage such as rest: "*"`,
      "key",
    );
  }
  return stages;
}

/**
 * The indexes of the store files a pattern names; `fail` is told why when it names none (or would
 * look outside the project).
 */
async function matchStores(
  pattern: string,
  root: string,
  indexOf: ReadonlyMap<string, number>,
  count: number,
  fail: (message: string) => void,
): Promise<number[]> {
  if (pattern === EVERY_STORE) return Array.from({ length: count }, (_, i) => i);
  if (!patternStaysInside(root, pattern)) {
    fail(outsideMessage("the pattern", quote(pattern), "path"));
    return [];
  }
  if (!hasMagic(pattern)) {
    const i = indexOf.get(resolve(root, pattern));
    if (i === undefined) {
      fail(
        `${quote(pattern)} is not a store file of the project (the files stores: lists); name store files relative to carte.yaml, such as stores/bog-centro.yaml`,
      );
      return [];
    }
    return [i];
  }
  const found = (await globFiles(pattern, root)).flatMap((f) => {
    const i = indexOf.get(f);
    return i === undefined ? [] : [i];
  });
  if (found.length === 0) {
    fail(
      `pattern ${quote(pattern)} matches no store file of the project (the files stores: lists); fix the pattern, or write "*" for every store`,
    );
  }
  return found;
}
