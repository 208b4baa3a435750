/** Fixtures of the finance e2e tests: the example chain against an emulator with seeded finance data. */

import { rmSync } from "node:fs";
import path from "node:path";
import { startEmulator, type FinanceSeed, type RunningEmulator } from "../../src/emulator/index.js";
import { PlatformClient } from "../../src/platform/client.js";
import { CLIENT_ID, CLIENT_SECRET, copyExample, edit, seedFor } from "../helpers/project.js";

export const STORE_FILES = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
export const STORES = ["900101", "900102", "900201"];

export interface FinanceProject {
  dir: string;
  config: string;
  emu: RunningEmulator;
  client: PlatformClient;
  close(): Promise<void>;
}

/** The example chain pointed at an emulator on port 0 whose finance data follows `finance`. */
export async function financeProject(finance: FinanceSeed = {}): Promise<FinanceProject> {
  const dir = copyExample();
  const emu = await startEmulator({ port: 0, seed: { ...seedFor(dir, STORE_FILES), finance } });
  const config = path.join(dir, "carte.yaml");
  edit(config, /^version: 1$/m, `version: 1\nplatform:\n  base_url: ${emu.url}`);
  const client = new PlatformClient({
    baseUrl: emu.url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    requestsPerSecond: Infinity,
  });
  return {
    dir,
    config,
    emu,
    client,
    close: async () => {
      await client.close();
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A small RFC 4180 reader (quotes, doubled quotes, commas and newlines inside quotes), for checks. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else if (ch !== "\r") cell += ch;
  }
  if (cell !== "" || row.length > 0) rows.push([...row, cell]);
  const [header, ...body] = rows;
  if (!header) return [];
  return body.map((r) => {
    if (r.length !== header.length) throw new Error(`row of ${r.length} cells, header of ${header.length}`);
    return Object.fromEntries(header.map((h, i) => [h, r[i]!]));
  });
}
