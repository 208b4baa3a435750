/**
 * `carte finance ...`: exports of the finance reads and the reconciliation (docs/finance.md).
 *
 *   carte finance payments|orders|adjustments|cancellations [--store ID...] [--from DAY] [--to DAY]
 *     [--payment-id N] [--status S] [--format table|csv|json|ndjson] [--out FILE]
 *   carte finance reconcile [--store ID...] [--from DAY] [--to DAY] [--format markdown|csv] [--out FILE]
 *
 * Exit codes: 0 success (reconcile: every payment matches and no entry is an orphan); 1 error;
 * 2 reconcile found a discrepancy or an orphan entry.
 */

import path from "node:path";
import cliProgress from "cli-progress";
import type { Argv, CommandModule } from "yargs";
import { rootFor, SHARED_FILE_MODE, writeFileAtomic } from "../atomic.js";
import { loadProject, type LoadedProject } from "../config/index.js";
import { currencyOf, type Currency } from "../money.js";
import { CommandLineError, ExitCode, UsageError } from "../errors.js";
import { DEFAULT_CONCURRENCY, FinanceReader, MAX_PAGE_SIZE, type ReadProgress } from "../finance/reader.js";
import { ENTRY_NOUN, EXPORT_FORMATS, renderExport, type ExportFormat } from "../finance/export.js";
import { parseMoney } from "../finance/cents.js";
import { DEFAULT_RULE, hasFindings, type ReconcileRule } from "../finance/reconcile.js";
import {
  REPORT_FORMATS,
  renderReconcileReport,
  type ReportFormat,
} from "../finance/reconciliation-report.js";
import {
  checkQuery,
  exportEntries,
  reconcileStores,
  type FinanceQuery,
  type PaymentDateField,
} from "../finance/workflows.js";
import { selectStores } from "../finance/store-selection.js";
import type { FinanceKind } from "../finance/records.js";
import type { DesiredState } from "../model.js";
import { escapeTerminal } from "../render/escape.js";
import { openSession } from "../run/session.js";
import { printWarnings, type CliIo } from "./io.js";
import { checkParallelism } from "./option-checks.js";
import { progressMode } from "./progress.js";
import { writeCallsLine } from "./calls-line.js";
import { choosePlatforms } from "../run/each-platform.js";
import { eachPlatformSection, platformChoice, platformFlags } from "./platform-sections.js";

const DATE_FIELDS = ["expected_execution_date", "confirmed_payment_date"] as const;

/** Options common to every finance command. */
export interface FinanceCommonOptions {
  config: string;
  stores: string[];
  from: string | undefined;
  to: string | undefined;
  dateField: PaymentDateField | undefined;
  out: string | undefined;
  pageSize: number;
  parallelism: number;
  quiet: boolean;
  /** `--platform NAME` (repeatable): these platforms of carte.yaml `platforms:` only; none: each in turn. */
  platforms?: string[] | undefined;
  /** `--rehearsal`: the platforms' development hosts, with their test stores. */
  rehearsal?: boolean | undefined;
}

/** Options of `carte finance payments|orders|adjustments|cancellations`. */
export interface FinanceExportCommand extends FinanceCommonOptions {
  kind: FinanceKind;
  paymentId: string | undefined;
  status: string | undefined;
  /** `undefined`: from the extension of `out` (.csv, .json, .ndjson, .jsonl), else a table. */
  format: ExportFormat | undefined;
}

/** Options of `carte finance reconcile`. */
export interface FinanceReconcileCommand extends FinanceCommonOptions {
  format: ReportFormat;
  adjustments: ReconcileRule["adjustments"];
  cancellations: ReconcileRule["cancellations"];
  /** Largest |difference| still a match, in the major unit (e.g. `"0.05"`). */
  tolerance: string;
}

function checkCommon(o: FinanceCommonOptions): void {
  if (!Number.isInteger(o.pageSize) || o.pageSize < 1 || o.pageSize > MAX_PAGE_SIZE) {
    throw new CommandLineError(`--page-size must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  checkParallelism(o.parallelism);
}

/** A progress bar of pages read, on standard error, only on an interactive terminal and without --quiet. */
function pageProgress(io: CliIo, quiet: boolean, label: string) {
  if (progressMode(io, { quiet, json: false }) !== "bar") {
    return { onProgress: undefined, stop: () => {} };
  }
  let bar: cliProgress.SingleBar | undefined;
  return {
    onProgress: (p: ReadProgress) => {
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            stream: io.errStream,
            format: `${label} [{bar}] {value}/{total} pages | {entries} entries | ETA {eta_formatted}`,
            hideCursor: true,
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(p.pagesKnown, p.pagesDone, { entries: p.entries });
      }
      bar.setTotal(p.pagesKnown);
      bar.update(p.pagesDone, { entries: p.entries });
    },
    stop: () => {
      bar?.stop();
      bar = undefined;
    },
  };
}

/** Platform ids of the stores to read. @throws UsageError when there are none. */
function storesOf(desired: DesiredState, patterns: string[]): string[] {
  const stores = selectStores(desired, patterns).map((s) => s.storeId);
  if (stores.length === 0) throw new UsageError("no store to read: the configuration names none");
  return stores;
}

function formatFromOut(out: string | undefined): ExportFormat | undefined {
  const ext = out ? path.extname(out).toLowerCase() : "";
  if (ext === ".csv") return "csv";
  if (ext === ".json") return "json";
  if (ext === ".ndjson" || ext === ".jsonl") return "ndjson";
  return undefined;
}

async function emit(io: CliIo, text: string, out: string | undefined): Promise<void> {
  // Atomic and never through a link (src/atomic.ts); an error names the file and the cause.
  if (out)
    await writeFileAtomic(out, text, {
      root: rootFor(out),
      purpose: "save the export to",
      mode: SHARED_FILE_MODE,
    });
  else io.out(text);
}

/** The currency of carte.yaml `currency:`, in which the reports for people show amounts. */
function projectCurrency(project: { desired: { currency?: string | undefined } }): Currency | undefined {
  return project.desired.currency === undefined ? undefined : currencyOf(project.desired.currency);
}

/**
 * Runs a finance command once per platform chosen (carte.yaml `platforms:`, `--platform`,
 * `--rehearsal`), each in its own section when the output is for people; once for a project of one
 * platform. A file (`--out`) or a format for machines is of one platform.
 *
 * @throws {@link CommandLineError} for a file or a machine format asked of several platforms.
 */
async function financeEachPlatform(
  opts: FinanceCommonOptions,
  io: CliIo,
  forPeople: boolean,
  body: (project: LoadedProject, name: string | undefined) => Promise<number>,
): Promise<number> {
  const names = await choosePlatforms(opts.config, opts.platforms, opts.rehearsal);
  if (names.length > 1 && (opts.out !== undefined || !forPeople)) {
    throw new CommandLineError(
      "a finance file (--out, or a format for machines) is of one platform: name it with --platform NAME (carte.yaml names several platforms)",
    );
  }
  return eachPlatformSection(opts.config, opts, io, async (scope, name, heading) => {
    const project = await loadProject(opts.config, scope);
    printWarnings(project.warnings, io);
    if (name !== undefined && forPeople && opts.out === undefined) heading(project);
    return body(project, name);
  });
}

/** `carte finance payments|orders|adjustments|cancellations`. */
export async function runFinanceExport(opts: FinanceExportCommand, io: CliIo): Promise<number> {
  checkCommon(opts);
  const query: FinanceQuery = {
    stores: [],
    from: opts.from,
    to: opts.to,
    dateField: opts.dateField,
    paymentId: opts.paymentId,
    status: opts.status,
  };
  checkQuery(query);
  if (opts.dateField && opts.kind !== "payments") {
    throw new CommandLineError("--date-field applies to payments only (the other reads filter order_date)");
  }
  const format = opts.format ?? formatFromOut(opts.out) ?? "table";
  return financeEachPlatform(opts, io, format === "table", (project, name) =>
    exportOne(opts, io, { project, name, query: { ...query }, format }),
  );
}

/** A finance export of one platform's stores (or the project's, without `platforms:`). */
async function exportOne(
  opts: FinanceExportCommand,
  io: CliIo,
  at: { project: LoadedProject; name: string | undefined; query: FinanceQuery; format: ExportFormat },
): Promise<number> {
  const { project, query, format } = at;
  query.stores = storesOf(project.desired, opts.stores);
  const progress = pageProgress(io, opts.quiet, `reading ${opts.kind}`);
  const session = await openSession(project, { env: io.env, connections: opts.parallelism });
  try {
    const reader = new FinanceReader(session.client, {
      pageSize: opts.pageSize,
      concurrency: opts.parallelism,
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
    const { records, warnings } = await exportEntries(reader, opts.kind, query);
    progress.stop();
    printWarnings(warnings, io);
    await emit(io, renderExport(opts.kind, format, records, projectCurrency(project)), opts.out);
    if (opts.out && !opts.quiet) {
      const n = records.length;
      io.err(
        escapeTerminal(
          `Wrote ${n} ${ENTRY_NOUN[opts.kind]}${n === 1 ? "" : "s"} (${format}) to ${opts.out}`,
        ) + "\n",
      );
    }
    return ExitCode.ok;
  } finally {
    progress.stop();
    writeCallsLine(session.client.calls.counts(), io, opts.quiet, at.name);
    await session.close();
  }
}

/** The reconciliation rule of the command's flags. @throws CommandLineError on a bad tolerance. */
export function ruleFromOptions(
  o: Pick<FinanceReconcileCommand, "adjustments" | "cancellations" | "tolerance">,
) {
  const t = parseMoney(o.tolerance);
  if (!t.ok || t.cents < 0n) {
    throw new CommandLineError(
      `--tolerance must be an amount ≥ 0 with at most 2 decimals, not "${o.tolerance}"`,
    );
  }
  const rule: ReconcileRule = {
    ...DEFAULT_RULE,
    adjustments: o.adjustments,
    cancellations: o.cancellations,
    tolerance: t.cents,
  };
  return rule;
}

/** `carte finance reconcile`: exit 0 when everything matches, 2 on a discrepancy or orphan, 1 on error. */
export async function runFinanceReconcile(opts: FinanceReconcileCommand, io: CliIo): Promise<number> {
  checkCommon(opts);
  const rule = ruleFromOptions(opts);
  const query: FinanceQuery = { stores: [], from: opts.from, to: opts.to, dateField: opts.dateField };
  checkQuery(query);
  return financeEachPlatform(opts, io, opts.format === "markdown", (project, name) =>
    reconcileOne(opts, io, { project, name, query: { ...query }, rule }),
  );
}

/** The reconciliation of one platform's stores (or the project's, without `platforms:`). */
async function reconcileOne(
  opts: FinanceReconcileCommand,
  io: CliIo,
  at: { project: LoadedProject; name: string | undefined; query: FinanceQuery; rule: ReconcileRule },
): Promise<number> {
  const { project, query, rule } = at;
  query.stores = storesOf(project.desired, opts.stores);
  const progress = pageProgress(io, opts.quiet, "reading finance");
  const session = await openSession(project, { env: io.env, connections: opts.parallelism });
  try {
    const reader = new FinanceReader(session.client, {
      pageSize: opts.pageSize,
      concurrency: opts.parallelism,
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
    const run = await reconcileStores(reader, query, rule);
    progress.stop();
    printWarnings(run.warnings, io);
    await emit(
      io,
      renderReconcileReport(opts.format, run.reconciliation, run.scope, projectCurrency(project)),
      opts.out,
    );
    const s = run.reconciliation.summary;
    if (!opts.quiet) {
      io.err(
        escapeTerminal(
          `Reconciled ${s.payments} payment${s.payments === 1 ? "" : "s"}: ${s.matched} matched, ` +
            `${s.discrepancies} with a discrepancy, ${s.orphans} orphan entr${s.orphans === 1 ? "y" : "ies"}` +
            `${opts.out ? `; report written to ${opts.out}` : ""}.`,
        ) + "\n",
      );
    }
    return hasFindings(run.reconciliation) ? ExitCode.discrepancy : ExitCode.ok;
  } finally {
    progress.stop();
    writeCallsLine(session.client.calls.counts(), io, opts.quiet, at.name);
    await session.close();
  }
}

/** The options every finance command shares, from the parsed flags of {@link commonFlags}. */
function commonOptions(a: {
  config: string;
  store: string[];
  from: string | undefined;
  to: string | undefined;
  "date-field": PaymentDateField | undefined;
  out: string | undefined;
  "page-size": number;
  parallelism: number;
  quiet: boolean;
  platform?: string[];
  rehearsal?: boolean;
}) {
  return {
    ...platformChoice(a),
    config: a.config,
    stores: a.store,
    from: a.from,
    to: a.to,
    dateField: a["date-field"],
    out: a.out,
    pageSize: a["page-size"],
    parallelism: a.parallelism,
    quiet: a.quiet,
  };
}

/** Flags shared by every finance subcommand. */
function commonFlags<T>(y: Argv<T>) {
  return platformFlags(y)
    .option("store", {
      type: "string",
      array: true,
      default: [] as string[],
      describe: "Only these stores: platform store ids or integration ids (* and ? allowed); default all",
    })
    .option("from", { type: "string", describe: "First day, YYYY-MM-DD (inclusive)" })
    .option("to", { type: "string", describe: "Last day, YYYY-MM-DD (inclusive)" })
    .option("date-field", {
      choices: DATE_FIELDS,
      describe: "Payments: the date --from/--to apply to (default expected_execution_date)",
    })
    .option("out", { type: "string", describe: "Write to FILE instead of standard output" })
    .option("page-size", {
      type: "number",
      default: MAX_PAGE_SIZE,
      describe: `Entries per page, 1..${MAX_PAGE_SIZE}`,
    })
    .option("parallelism", {
      type: "number",
      default: DEFAULT_CONCURRENCY,
      describe: "Pages read at once, across stores",
    })
    .option("quiet", { alias: "q", type: "boolean", default: false, describe: "No progress output" });
}

const READS: { kind: FinanceKind; describe: string; dates: string }[] = [
  {
    kind: "payments",
    describe: "Export payments",
    dates: "--from/--to filter expected_execution_date (or --date-field confirmed_payment_date)",
  },
  { kind: "orders", describe: "Export the orders behind payments", dates: "--from/--to filter order_date" },
  {
    kind: "adjustments",
    describe: "Export order adjustments",
    dates: "--from/--to filter order_date",
  },
  {
    kind: "cancellations",
    describe: "Export charged cancellations",
    dates: "--from/--to filter order_date",
  },
];

/**
 * The `finance` command group for src/cli/main.ts. `setCode` receives the exit code of the
 * subcommand that ran.
 */
export function financeCommand<T extends { config: string }>(
  io: CliIo,
  setCode: (code: number) => void,
): CommandModule<T, T> {
  return {
    command: "finance",
    describe: "Export payments, orders, adjustments and cancellations; reconcile payments (docs/finance.md)",
    builder: (y: Argv<T>) => {
      let g = y;
      for (const r of READS) {
        g = g.command(
          r.kind,
          `${r.describe} (${r.dates})`,
          (c) =>
            commonFlags(c)
              .option("payment-id", { type: "string", describe: "Only the entries of this payment" })
              .option("status", {
                type: "string",
                describe:
                  r.kind === "payments"
                    ? "Only payments with this status (compared by carte: the endpoint has no such filter)"
                    : r.kind === "cancellations"
                      ? "Only this order_status (compared by carte: the endpoint has no such filter)"
                      : "Only this order_status (order_status:eq)",
              })
              .option("format", {
                choices: EXPORT_FORMATS,
                describe: "table (default on no --out), csv, json or ndjson; --out FILE.csv etc. sets it",
              }),
          async (a) => {
            setCode(
              await runFinanceExport(
                {
                  kind: r.kind,
                  ...commonOptions(a),
                  paymentId: a["payment-id"],
                  status: a.status,
                  format: a.format,
                },
                io,
              ),
            );
          },
        ) as unknown as Argv<T>;
      }
      return g
        .command(
          "reconcile",
          "Check every payment against its orders, adjustments and charged cancellations; exit 2 on a discrepancy",
          (c) =>
            commonFlags(c)
              .option("format", {
                choices: REPORT_FORMATS,
                default: "markdown" as ReportFormat,
                describe: "Report format",
              })
              .option("adjustments", {
                choices: ["amount", "ignore"] as const,
                default: DEFAULT_RULE.adjustments,
                describe: "How adjustments count: their amount, or not at all",
              })
              .option("cancellations", {
                choices: ["amount", "subtract", "ignore"] as const,
                default: DEFAULT_RULE.cancellations,
                describe:
                  "How charged cancellations count: amount as signed, subtract |amount|, or not at all",
              })
              .option("tolerance", {
                type: "string",
                default: "0.00",
                describe: "Largest |difference| still counted as a match",
              }),
          async (a) => {
            setCode(
              await runFinanceReconcile(
                {
                  ...commonOptions(a),
                  format: a.format,
                  adjustments: a.adjustments,
                  cancellations: a.cancellations,
                  tolerance: a.tolerance,
                },
                io,
              ),
            );
          },
        )
        .demandCommand(
          1,
          "Name a finance command: payments, orders, adjustments, cancellations or reconcile.",
        ) as unknown as Argv<T>;
    },
    handler: () => {},
  };
}
