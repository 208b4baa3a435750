/**
 * The `carte` command: a thin adapter from arguments to the run in src/run/ (src/run/run.ts `runCarte`), and the
 * one place that turns errors into messages and exit codes.
 *
 * Exit codes: 0 success or no changes; 1 error; 2 changes pending (`plan --detailed-exitcode`);
 * 3 refused by a safety guard.
 */

import { realpathSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import yargs, { type Argv } from "yargs";
import { hideBin } from "yargs/helpers";
import {
  SHOW_CALLS_OPTION,
  runApply,
  runEmulator,
  runPlan,
  runValidate,
  type RunCommand,
} from "./commands.js";
import { financeCommand } from "./finance.js";
import { explainCommand } from "./explain.js";
import { importCommand } from "./import.js";
import { forceUnlockCommand } from "./unlock.js";
import { webhooksCommand } from "./webhooks.js";
import { projectCommands } from "./project.js";
import { CommandLineError } from "../errors.js";
import { carteVersion } from "../config/version.js";
import { closest, didYouMean } from "../suggest.js";
import { parseShard } from "../gitops/shard.js";
import { SEGMENT_NAMES, type SegmentName } from "../kinds/registry.js";
import { DEFAULT_PARALLELISM } from "../platform/client.js";
import { reportError, type CliIo } from "./io.js";
import { checkParallelism } from "./option-checks.js";
import { platformChoice, platformFlags } from "./platform-sections.js";
import { escapeLines } from "../render/escape.js";

const EPILOGUE = `Exit codes:
  0  success, or no changes
  1  error
  2  changes pending (plan --detailed-exitcode), a discrepancy found (finance reconcile), or
     import could not write the live state exactly (what the files cannot express, --merge conflicts)
  3  refused by a safety guard

Credentials come from CARTE_CLIENT_ID and CARTE_CLIENT_SECRET, or, for each platform of carte.yaml
platforms:, from the variables it names (default CARTE_<NAME>_CLIENT_ID). Without a platform address
in carte.yaml, carte runs against its embedded emulator. A project of several platforms runs each in
turn (--platform NAME: that one only). CARTE_NOW (an ISO 8601 time with offset) sets
the clock time-bound entries are judged against (until:, dated special days, prices from:).`;

/**
 * The largest request body `carte emulator` accepts unless told (`--max-body-bytes`), in bytes, as its
 * help shows it: the emulator's own default (64 MiB, `DEFAULT_MAX_BODY_BYTES` of src/emulator), which
 * applies when the flag is not given. Written here so that the CLI starts without loading the emulator
 * (test/golden/help.test.ts checks that the two agree).
 */
export const EMULATOR_MAX_BODY_BYTES_SHOWN = String(64 * 1024 * 1024);

/** carte's version, from its package.json (`carte --version`). */
export const VERSION: string = carteVersion();

/**
 * A yargs "Invalid values" message (a value outside an option's choices) with the closest choice
 * suggested: `Given: "itme", Choices: "item", …` gains `; did you mean "item"?`.
 */
function withChoiceSuggestion(msg: string): string {
  const m = /Given: "([^"]*)", Choices: (.*)$/m.exec(msg);
  if (!m) return msg;
  const choices = [...m[2]!.matchAll(/"([^"]*)"/g)].map((c) => c[1]!);
  const hint = didYouMean(m[1]!, choices, (c) => JSON.stringify(c));
  return hint ? `${msg}${hint}` : msg;
}

/** The positional words of a command line, without the values of options written `--name value`. */
function words(argv: readonly string[]): { word: string; index: number }[] {
  const out: { word: string; index: number }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    if (a.startsWith("-")) {
      // `--name value`: the value is not a word (a boolean flag before a command is rare in carte).
      if (
        !a.includes("=") &&
        /^--?[a-z]/i.test(a) &&
        argv[i + 1] !== undefined &&
        !argv[i + 1]!.startsWith("-")
      )
        i++;
      continue;
    }
    out.push({ word: a, index: i });
  }
  return out;
}

/**
 * yargs' message of a misuse, on one line, with a suggestion where one helps: an unknown command is
 * named with the command it would be, parents included (`carte finance reconcille` → did you mean
 * "carte finance reconcile"?), an unknown option gets the closest option of its command, a value
 * outside an option's choices gets the closest choice, and a missing file argument is said in words.
 *
 * @param msg - yargs' message.
 * @param argv - the command line.
 * @param options - the options of the command yargs was parsing (long names and aliases).
 */
export function usageMessage(msg: string, argv: readonly string[], options: readonly string[] = []): string {
  let text = withChoiceSuggestion(msg);
  const recommended = /^Did you mean (.+)\?$/.exec(text.trim());
  if (recommended) {
    const wanted = recommended[1]!;
    const given = words(argv);
    // The word that was meant as `wanted` is the one closest to it; the words before it are its parents.
    let at = given.findIndex((w) => closest(w.word, [wanted]) !== undefined);
    if (at === -1) at = 0;
    const unknown = given[at]?.word ?? wanted;
    const parents = given.slice(0, at).map((w) => w.word);
    text = `unknown command ${JSON.stringify(unknown)}. Did you mean ${JSON.stringify(["carte", ...parents, wanted].join(" "))}?`;
  }
  const unknownOptions = /^Unknown arguments?: (.*)$/s.exec(text.trim());
  if (unknownOptions) {
    const names = unknownOptions[1]!.split(",").map((n) => n.trim());
    // yargs names each unknown option twice (`detaled-exitcode, detaledExitcode`): keep the form written.
    const written = names.filter((n) =>
      argv.some((a) => a === `--${n}` || a.startsWith(`--${n}=`) || a === `-${n}`),
    );
    const shown = (written.length > 0 ? written : names).map((n) => {
      const flag = n.length === 1 ? `-${n}` : `--${n}`;
      const long = options.filter((o) => o.length > 1 && !/[A-Z]/.test(o));
      const best = n.length > 1 ? closest(n, long) : undefined;
      return best === undefined ? flag : `${flag} (did you mean --${best}?)`;
    });
    text = `unknown option${shown.length === 1 ? "" : "s"} ${shown.join(", ")}`;
  }
  const missing = /^Not enough non-option arguments: got (\d+), need at least (\d+)/.exec(text.trim());
  if (missing) {
    const command = words(argv)[0]?.word;
    const what = command === undefined ? undefined : MISSING_ARGUMENT.get(command);
    if (what !== undefined) text = what;
    else
      text =
        `${command === undefined ? "this command" : `carte ${command}`} needs ${missing[2]} more argument${missing[2] === "1" ? "" : "s"}: see carte ${command ?? ""} --help`.replace(
          "  ",
          " ",
        );
  }
  return text.replace(/\s*\n\s*/g, " ");
}

/** What a command whose positional argument is missing needs, in words. */
const MISSING_ARGUMENT = new Map<string, string>([
  [
    "show",
    "carte show needs the plan file to show: carte show PLAN.json (a file written by carte plan --out PLAN.json)",
  ],
]);

/** `--kind` choices: every address segment of the registered kinds (src/kinds/registry.ts). */
const KINDS = SEGMENT_NAMES;

/** The flags `plan` and `apply` share: targeting, guards, concurrency, output. */
function runFlags<T>(y: Argv<T>) {
  return platformFlags(y)
    .option("store", {
      type: "string",
      array: true,
      default: [] as string[],
      describe: "Only these stores (integration ids; * and ? allowed)",
    })
    .option("kind", {
      choices: KINDS,
      array: true,
      default: [] as SegmentName[],
      describe: "Only these resource kinds",
    })
    .option("target", {
      type: "string",
      array: true,
      default: [] as string[],
      describe: "Only these addresses, e.g. 'store[bog-*].item[COMBO-*]' (what they depend on is included)",
    })
    .option("force", { type: "boolean", default: false, describe: "Go past safety guards (needs --reason)" })
    .option("reason", {
      type: "string",
      describe: "Why the guards are overridden; recorded in the plan and the output",
    })
    .option("shard", {
      type: "string",
      describe: "Only shard K of N (K/N): stores split by rendezvous hashing, client settings on shard 1",
    })
    .option("stage", {
      type: "string",
      describe: "Only this stage of rollout: in carte.yaml (client settings go with the first stage)",
    })
    .option("parallelism", {
      type: "number",
      default: DEFAULT_PARALLELISM,
      describe: "Stores read and calls made at once",
    })
    .option("timeout", {
      type: "string",
      default: "15m",
      describe:
        "Longest the run may take, retries and the waits the platform asks for included (e.g. 90s, 15m, 1h)",
    })
    .option("quiet", { alias: "q", type: "boolean", default: false, describe: "No progress output" })
    .option("show-calls", SHOW_CALLS_OPTION)
    .check((a) => {
      if (a.force && !(typeof a.reason === "string" && a.reason.trim()))
        throw new CommandLineError('--force needs --reason "why"');
      if (parseDuration(a.timeout) === undefined) {
        throw new CommandLineError(
          "--timeout must be a duration such as 90s, 15m or 1h (a bare number is seconds)",
        );
      }
      checkParallelism(a.parallelism);
      if (a.shard !== undefined) parseShard(String(a.shard));
      return true;
    });
}

/**
 * A duration of `--timeout` in milliseconds: `90s`, `15m`, `1h`, `500ms`, or a bare number of seconds;
 * undefined when it is not one (or not above zero).
 */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "s") as "ms" | "s" | "m" | "h"];
  const ms = Math.round(Number(m[1]) * unit);
  return ms > 0 ? ms : undefined;
}

function runCommand(a: {
  config: string;
  color: boolean | undefined;
  quiet: boolean;
  parallelism: number;
  timeout: string;
  store: string[];
  kind: SegmentName[];
  target: string[];
  force: boolean;
  reason: string | undefined;
  shard?: string | undefined;
  stage?: string | undefined;
  "show-calls": boolean;
  platform?: string[];
  rehearsal?: boolean;
}): RunCommand {
  return {
    config: a.config,
    color: a.color,
    quiet: a.quiet,
    parallelism: a.parallelism,
    timeoutMs: parseDuration(a.timeout)!,
    stores: a.store,
    kinds: a.kind,
    targets: a.target,
    force: a.force && a.reason ? { reason: a.reason } : undefined,
    shard: a.shard !== undefined ? parseShard(String(a.shard)) : undefined,
    stage: a.stage,
    showCalls: a["show-calls"],
    ...platformChoice(a),
  };
}

/** The options every command has (`--config`, `--color`, `--debug`). */
interface GlobalArgs {
  config: string;
  color: boolean | undefined;
  debug: boolean;
}

/** The options of `carte plan`. */
function planOptions(y: Argv<GlobalArgs>) {
  return runFlags(y)
    .option("format", {
      choices: ["text", "json", "markdown"] as const,
      default: "text" as const,
      describe: "text for people, json for machines (docs/plan-format.md), markdown for pull requests",
    })
    .option("json", { type: "boolean", default: false, describe: "Same as --format json" })
    .option("out", { type: "string", describe: "Save the plan to FILE for `carte apply FILE`" })
    .option("base", {
      type: "string",
      describe:
        "Also plan the files of this git ref (read with git, no checkout) and show this branch's changes apart from what already differs on the platform",
    })
    .option("scope", {
      choices: ["all", "changed"] as const,
      default: "all" as const,
      describe:
        "changed (needs --base REF): read and plan only the stores, and the parts of each, that the files' difference from the base can touch",
    })
    .option("detailed-exitcode", {
      type: "boolean",
      default: false,
      describe: "Exit 0 when there are no changes, 2 when there are, 1 on error",
    })
    .option("secrets-file", {
      type: "string",
      describe:
        "The secrets file apply uses (default CARTE_SECRETS_FILE): the plan says which webhook secrets an earlier run never saved there, which an apply rotates",
    });
}

/** The options of `carte apply`. */
/** The options of `carte preview`: those of a plan, and where the pages go. */
function previewOptions(y: Argv<GlobalArgs>) {
  return (
    runFlags(y)
      .option("out", {
        type: "string",
        describe: "Folder of the pages (default .carte/preview beside carte.yaml)",
      })
      .option("plan", {
        type: "string",
        describe: "Preview this saved plan (carte plan --out) instead of planning",
      })
      .option("open", { type: "boolean", default: false, describe: "Open the index in the browser" })
      // A preview shows a plan the guards refuse too, and lists no calls: these say nothing here.
      .hide("force")
      .hide("reason")
      .hide("show-calls")
  );
}

function applyOptions(y: Argv<GlobalArgs>) {
  return runFlags(y)
    .positional("planfile", { type: "string", describe: "A plan saved with `carte plan --out`" })
    .option("auto-approve", {
      type: "boolean",
      default: false,
      describe: "Do not ask for confirmation",
    })
    .option("json", { type: "boolean", default: false, describe: "Print the apply report as JSON" })
    .option("secrets-file", {
      type: "string",
      describe:
        "JSON or YAML file (event → secret, mode 0600) where new webhook secrets are kept; default CARTE_SECRETS_FILE",
    })
    .option("replan", {
      type: "boolean",
      default: false,
      describe: "When the saved plan is stale, plan again instead of refusing (asks unless --auto-approve)",
    });
}

/** The options of `carte emulator`: where it listens, its state, and the faults it injects. */
function emulatorOptions<T>(y: Argv<T>) {
  return y
    .option("host", { type: "string", default: "127.0.0.1", describe: "Address to listen on" })
    .option("port", {
      type: "number",
      default: 8787,
      describe: "Port (0: any free port); with --split-hosts the first group's, the others' after it",
    })
    .option("split-hosts", {
      type: "boolean",
      default: false,
      describe:
        "Serve each API group (auth, menu, finance, availability, webhooks, utils) at its own port, as the platform serves its groups from separate hosts; another group's route answers 404",
    })
    .option("seed", { type: "string", describe: "YAML or JSON file of clients and their stores" })
    .option("state", { type: "string", describe: "File that keeps the state across restarts" })
    .option("apply-delay-ms", {
      type: "number",
      default: 200,
      describe: "Delay before an accepted write becomes visible, in milliseconds",
    })
    .option("verbose", {
      type: "boolean",
      default: false,
      describe: "Log one line per request and per webhook delivery",
    })
    .option("latency-ms", { type: "number", default: 0, describe: "Fault: delay every answer by N ms" })
    .option("jitter-ms", {
      type: "number",
      default: 0,
      describe: "Fault: add a random 0..N ms to the latency",
    })
    .option("fault-rate", {
      type: "number",
      default: 0,
      describe: "Fault: share (0..1) of calls answered 500/502/503 or dropped",
    })
    .option("rate-limit", {
      type: "number",
      default: 0,
      describe: "Fault: requests per second per client before 429 with Retry-After (0: unlimited)",
    })
    .option("slow-ms", {
      type: "number",
      default: 0,
      describe: "Fault: answer after N ms (choose more than the client's timeout)",
    })
    .option("slow-rate", {
      type: "number",
      default: 1,
      describe: "Fault: share (0..1) of slow answers",
    })
    .option("fault-seed", {
      type: "number",
      default: 1,
      describe: "Seed of the fault decisions (reproducible)",
    })
    .option("max-body-bytes", {
      type: "number",
      defaultDescription: EMULATOR_MAX_BODY_BYTES_SHOWN,
      describe: "Largest request body accepted, in bytes; larger ones get 413",
    })
    .option("control-token", {
      type: "string",
      describe:
        "Require this value in the x-emulator-control-token header of /__emulator/ requests (default CARTE_EMULATOR_CONTROL_TOKEN)",
    })
    .option("strict", {
      type: "boolean",
      default: true,
      describe:
        "Hold requests and answers to docs/openapi.yaml: 400 for a request that breaks it, 500 for an answer that does (--no-strict: off)",
    });
}

/** The options of `carte emulator`, as parsed. */
type EmulatorArgs = Awaited<ReturnType<typeof emulatorOptions>["argv"]>;

/** The emulator's settings from its options; the control token defaults to CARTE_EMULATOR_CONTROL_TOKEN. */
function emulatorRequest(args: EmulatorArgs, env: CliIo["env"]): Parameters<typeof runEmulator>[0] {
  return {
    host: args.host,
    port: args.port,
    splitHosts: args["split-hosts"],
    seed: args.seed,
    state: args.state,
    applyDelayMs: args["apply-delay-ms"],
    verbose: args.verbose,
    latencyMs: args["latency-ms"],
    jitterMs: args["jitter-ms"],
    faultRate: args["fault-rate"],
    rateLimit: args["rate-limit"],
    slowMs: args["slow-ms"],
    slowRate: args["slow-rate"],
    faultSeed: args["fault-seed"],
    maxBodyBytes: args["max-body-bytes"],
    controlToken: args["control-token"] ?? (env.CARTE_EMULATOR_CONTROL_TOKEN || undefined),
    strict: args.strict,
  };
}

/** The part of a yargs instance's own methods that keeps the help of the command being run. */
interface YargsInternals {
  getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?: () => void } | undefined };
}

/** The options every command has (`init` takes no `--config`: src/cli/project.ts refuses it). */
const GLOBAL_OPTIONS = {
  config: { alias: "c", type: "string", default: "carte.yaml", describe: "Path of the project file" },
  color: { type: "boolean", describe: "Colour (--no-color: none); default: on a terminal unless NO_COLOR" },
  debug: { type: "boolean", default: false, describe: "Show stack traces of errors" },
} as const;

/** Runs the CLI with the given arguments and returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let code = 0;
  const debug = argv.includes("--debug");
  const parser = yargs(argv)
    .scriptName("carte")
    .usage("$0 <command> [options]")
    .options(GLOBAL_OPTIONS)
    .command(
      "plan",
      "Show the changes that would make the platform match the files",
      planOptions,
      async (args) => {
        code = await runPlan(
          {
            ...runCommand(args),
            format: args.json ? "json" : args.format,
            out: args.out,
            detailedExitcode: args["detailed-exitcode"],
            base: args.base,
            scope: args.scope,
            secretsFile: args["secrets-file"],
          },
          io,
        );
      },
    )
    .command(
      "apply [planfile]",
      "Make the changes (from a fresh plan, or from a saved plan file)",
      applyOptions,
      async (args) => {
        code = await runApply(
          {
            ...runCommand(args),
            planFile: args.planfile,
            autoApprove: args["auto-approve"],
            json: args.json,
            replan: args.replan,
            secretsFile: args["secrets-file"],
          },
          io,
        );
      },
    )
    .command(
      "preview",
      "Write the menus after the plan as HTML pages to review (docs/preview.md)",
      previewOptions,
      async (args) => {
        // Loaded by this command only: the page renderer is no part of any other command's start.
        const { runPreview } = await import("./preview.js");
        code = await runPreview(
          { ...runCommand(args), out: args.out, planFile: args.plan, open: args.open },
          io,
        );
      },
    )
    .command(
      "validate",
      "Check the files without calling the platform",
      (y) => platformFlags(y),
      async (args) => {
        code = await runValidate({ config: args.config, color: args.color, ...platformChoice(args) }, io);
      },
    )
    .command(
      "emulator",
      "Serve the platform API locally (stateful emulator)",
      emulatorOptions,
      async (args) => {
        code = await runEmulator(emulatorRequest(args, io.env), io);
      },
    )
    .command(financeCommand(io, (c) => (code = c)))
    .command(importCommand(io, (c) => (code = c)))
    .command(explainCommand(io, (c) => (code = c)))
    .command(webhooksCommand(io, (c) => (code = c)))
    .command(forceUnlockCommand(io, (c) => (code = c)))
    .command(projectCommands(io, (c) => (code = c)))
    .completion("completion", "Print a bash/zsh completion script: carte completion >> ~/.bashrc")
    .demandCommand(
      1,
      "Name a command: plan, apply, preview, validate, show, status, explain, import, init, emulator, finance, webhooks or completion.",
    )
    .recommendCommands()
    .strict()
    .epilogue(EPILOGUE)
    .help()
    .version(VERSION)
    .wrap(Math.min(110, io.columns ?? 100))
    .exitProcess(false)
    .fail((msg, err) => {
      if (err) throw err;
      // The options of the command being parsed, for "did you mean --…?" (yargs' own instance method).
      const known = Object.keys(
        (parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key,
      );
      throw new CommandLineError(usageMessage(msg, argv, known));
    });
  // yargs renders the whole help of the command it runs (every option, wrapped to the terminal) as the
  // command's handler starts, in case the handler asks for it; carte's handlers never do (a usage error
  // says its own words; `--help` renders the help anew), so that work, tens of milliseconds of every
  // command, is left out. The hook is yargs' own instance method; without it, yargs does as it always did.
  const usage = (parser as unknown as YargsInternals).getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === "function") usage.cacheHelpMessage = () => undefined;
  try {
    await parser.parseAsync();
    return code;
  } catch (err) {
    return reportError(err, io, debug);
  }
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    const self = fileURLToPath(import.meta.url);
    const target = realpathSync(entry);
    return target === self || target.endsWith("/bin/carte.js") || target.endsWith("/bin/carte");
  } catch {
    return false;
  }
}

/**
 * A writer to `stream` that goes on writing nothing once its reader has gone. A reader that stops early
 * (`carte import | head`) closes the pipe: the command still runs to its end, as the files and the
 * platform need, and what is left to print goes nowhere, instead of an unhandled EPIPE ending the
 * process half-way. Any other error of the stream is thrown. `chunks` writes pieces with the stream's
 * backpressure: the next piece is taken once the stream has room for it (its `drain`), so that a text
 * made as it is written (the JSON of a plan) is never all queued at once.
 */
export function pipeWriter(stream: Pick<NodeJS.WriteStream, "on" | "once" | "off" | "write">): {
  write: (s: string) => void;
  chunks: (chunks: Iterable<string>) => Promise<void>;
} {
  let closed = false;
  const wake = new Set<() => void>();
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    closed = true;
    for (const w of wake) w();
  });
  return {
    write: (s) => void (closed || stream.write(s)),
    // Each piece once the stream took the one before (its buffer under its high-water mark): memory
    // holds a piece or two, whatever the size of the text.
    chunks: async (chunks) => {
      for (const chunk of chunks) {
        if (closed) return;
        if (stream.write(chunk)) continue;
        await new Promise<void>((resolve) => {
          const done = (): void => {
            wake.delete(done);
            stream.off("drain", done);
            resolve();
          };
          wake.add(done);
          stream.once("drain", done);
        });
      }
    },
  };
}

if (isMain()) {
  // No Node warning reaches the user: what carte finds wrong is reported as a problem of
  // its own; a warning of Node or of a library is shown only with --debug.
  process.removeAllListeners("warning");
  process.on("warning", (w) => {
    if (process.argv.includes("--debug")) process.stderr.write(`${escapeLines(String(w.stack ?? w))}\n`);
  });
  const stdout = pipeWriter(process.stdout);
  const io: CliIo = {
    out: stdout.write,
    outChunks: stdout.chunks,
    err: pipeWriter(process.stderr).write,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    columns: process.stdout.columns,
    errStream: process.stderr,
    env: process.env,
    entry: process.argv[1],
    prompt: async (question) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
    untilSignal: () =>
      new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      }),
  };
  runCli(hideBin(process.argv), io).then(
    (c) => {
      process.exitCode = c;
    },
    (err: unknown) => {
      process.stderr.write(`internal error: ${String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
