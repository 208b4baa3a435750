/**
 * The views of `carte status` (src/status.ts): a table for people, JSON for machines. Store names,
 * integration ids and file names come from files or the platform: every value is escaped.
 */

import type { ProjectStatus, StoreStatus } from "../status.js";
import { escapeTerminal, jsonSafe } from "./escape.js";

/** Where a store stands, in words. */
function where(s: StoreStatus): string {
  if (s.state === "managed" && s.pairing === "wrong")
    return `${s.file ?? "?"}: its integration_id is another store's on the platform (carte plan names it)`;
  if (s.state === "managed" && s.pairing === "unknown")
    return `${s.file ?? "?"}: the platform knows no store with its integration_id`;
  if (s.state === "managed") return s.file ?? "";
  if (s.state === "missing") return `${s.file ?? "?"}: the platform does not show this store for this client`;
  return `no file manages it (seen in ${(s.seenIn ?? []).join(", ")}); carte leaves it as it is`;
}

/**
 * The status as text: a heading naming the platform, one line per store (state, store id, integration
 * id, name, then the managing file or what is wrong), and a count line.
 *
 * @param target - where the run went, e.g. `the embedded emulator (state in examples/chain/.carte)`.
 */
export function renderStatusText(status: ProjectStatus, target: string): string {
  const rows = status.stores.map((s) => [
    s.state,
    s.storeId,
    s.integrationId ?? "-",
    s.name ?? "-",
    s.open === undefined ? "" : s.open ? "open" : "closed",
    where(s),
  ]);
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(0, ...rows.map((r) => [...r[i]!].length)));
  const lines = [`Stores of this client on ${target}:`];
  for (const r of rows)
    lines.push(
      "  " +
        r
          .map((cell, i) =>
            i < widths.length ? cell.padEnd(widths[i]! + (cell.length - [...cell].length)) : cell,
          )
          .join("  ")
          .trimEnd(),
    );
  const count = (state: StoreStatus["state"]) => status.stores.filter((s) => s.state === state).length;
  const wrong = status.stores.filter((s) => s.pairing === "wrong" || s.pairing === "unknown").length;
  lines.push(
    `${count("managed")} managed, ${count("unmanaged")} unmanaged, ${count("missing")} missing` +
      (wrong > 0 ? `; ${wrong} with an integration_id that is not the store's.` : "."),
  );
  return lines.map((l) => escapeTerminal(l)).join("\n") + "\n";
}

/** The status as JSON: `{stores: [...]}` as in {@link ProjectStatus}. */
export function renderStatusJson(status: ProjectStatus): string {
  return jsonSafe(JSON.stringify(status, null, 2)) + "\n";
}
