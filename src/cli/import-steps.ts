/**
 * The steps `carte import` (src/cli/import.ts) takes alike for a project of one platform and for one
 * of several (carte.yaml `platforms:`, src/cli/import-countries.ts): reading the stores, telling what
 * the files cannot express, and what was written.
 */

import path from "node:path";
import type { LoadedProject } from "../config/index.js";
import type { buildImport, writeImport } from "../import/index.js";
import { filesNotInProject, readLiveStores } from "../import/index.js";
import { emptyStore, type StoreIdentity } from "../model.js";
import { escapeTerminal } from "../render/escape.js";
import { openSession } from "../run/session.js";
import { writeCallsLine } from "./calls-line.js";
import type { CliIo } from "./io.js";

/**
 * Reads the live state of the stores, through the embedded emulator when the project has no platform,
 * and tells the calls' success rate (`platform`: of that platform of carte.yaml `platforms:`).
 */
export async function readStores(
  project: LoadedProject,
  identities: StoreIdentity[],
  parallelism: number,
  io: CliIo,
  quiet: boolean,
  platform?: string,
): Promise<Awaited<ReturnType<typeof readLiveStores>>> {
  // The embedded emulator must know the stores to answer for them.
  const session = await openSession(
    { ...project, desired: { stores: Object.fromEntries(identities.map((s) => [s.key, emptyStore(s)])) } },
    { env: io.env, connections: parallelism },
  );
  try {
    return await readLiveStores(session.client, identities, { parallelism });
  } finally {
    // Each platform of a project of several says its own calls' success rate.
    writeCallsLine(session.client.calls.counts(), io, quiet, platform);
    await session.close();
  }
}

/**
 * Prints what an import or a merge wrote: the stores, the catalogs, the groups, and each file with its
 * status.
 */
export function printImported(
  io: CliIo,
  written: Awaited<ReturnType<typeof writeImport>>,
  result: Awaited<ReturnType<typeof buildImport>>,
  at: { stores: number; shown: string; merged: boolean },
): void {
  const { shown } = at;
  const n = at.stores;
  const catalogs = [
    ...(result.reused ?? []).map((c) => `${c.name} (${c.stores.join(", ")}, existing)`),
    ...result.catalogs.map((c) => `${c.name} (${c.stores.join(", ")})`),
  ];
  io.out(
    escapeTerminal(
      at.merged
        ? `Merged ${plural(written.filter((w) => w.path.startsWith("stores/")).length, "new store")} of ${n} ` +
            `into ${path.join(shown, "carte.yaml")}${catalogs.length > 0 ? `: ${catalogs.join("; ")}` : ""}.`
        : `Imported ${n} store${n === 1 ? "" : "s"} into ${result.catalogs.length} catalog` +
            `${result.catalogs.length === 1 ? "" : "s"}: ${catalogs.join("; ")}.`,
    ) + "\n",
  );
  const groups = result.groups ?? [];
  if (groups.length > 0) {
    io.out(
      escapeTerminal(
        `What stores share beyond the catalog is in ${plural(groups.length, "group")}: ` +
          `${groups.map((g) => `${g.name} (${plural(g.stores.length, "store")})`).join("; ")}.`,
      ) + "\n",
    );
  }
  for (const w of written)
    io.out(escapeTerminal(`  ${w.status.padEnd(9)} ${path.join(shown, w.path)}`) + "\n");
}

/**
 * Tells on stderr what carte's files cannot express of the live state (a warning with `--lenient`, else
 * an error), and the stores left as the project has them. Returns false when nothing may be written.
 */
export function reportUnwritable(
  result: Pick<Awaited<ReturnType<typeof buildImport>>, "notes" | "conflicts">,
  lenient: boolean,
  io: CliIo,
): boolean {
  if (result.notes.length > 0) {
    // Addresses and reasons quote SKUs and titles of the live state: one escaped line each.
    const lines = result.notes.map((n) => escapeTerminal(`  ${n.address}: ${n.reason}`));
    io.err(
      `${lenient ? "Warning" : "Error"}: carte's files cannot express ${result.notes.length} ` +
        `thing${result.notes.length === 1 ? "" : "s"} of the live state:\n${lines.join("\n")}\n`,
    );
    if (!lenient) {
      io.err(
        "Nothing was written. Run again with --lenient to write the rest; `carte plan` will then show these as changes.\n",
      );
      return false;
    }
  }
  if (result.conflicts.length > 0) {
    // Addresses and reasons quote SKUs and titles of the live state: one escaped line each.
    const lines = result.conflicts.map((n) => escapeTerminal(`  ${n.address}: ${n.reason}`));
    io.err(
      `Conflict${result.conflicts.length === 1 ? "" : "s"}: ${result.conflicts.length} ` +
        `store${result.conflicts.length === 1 ? " was" : "s were"} left as the project has ${result.conflicts.length === 1 ? "it" : "them"}:\n${lines.join("\n")}\n`,
    );
  }
  return true;
}

/** `n` and the word, in the plural unless `n` is 1. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * Tells on stderr, after a merge, that the project's files were left as they are, and which written
 * files its `stores:` and `catalogs:` entries do not take in yet.
 */
export async function printMergeNotes(
  io: CliIo,
  shown: string,
  configOut: string,
  files: Awaited<ReturnType<typeof buildImport>>["files"],
): Promise<void> {
  io.err(
    escapeTerminal(`${path.join(shown, "carte.yaml")} and every existing file were left as they are.`) + "\n",
  );
  const missing = await filesNotInProject(configOut, files);
  if (missing.length > 0) {
    io.err(
      `Add these files to its stores: and catalogs: entries:\n${missing.map((f) => `${escapeTerminal(`  ${f.path}`)}\n`).join("")}`,
    );
  }
}
