/**
 * The `carte` command: a thin adapter from arguments to the library calls in src/workflow.ts, and the
 * one place that turns errors into messages and exit codes.
 *
 * Exit codes: 0 success or no changes; 1 error; 2 changes pending (`plan --detailed-exitcode`);
 * 3 refused by a safety guard.
 */

import { realpathSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { runApply, runEmulator, runPlan, runValidate } from "./commands.js";
import { UsageError } from "../errors.js";
import { reportError, type CliIo } from "./io.js";

const EPILOGUE = `Exit codes:
  0  success, or no changes
  1  error
  2  changes pending (plan --detailed-exitcode)
  3  refused by a safety guard

Credentials come from CARTE_CLIENT_ID and CARTE_CLIENT_SECRET. Without a platform address in
carte.yaml, carte runs against its embedded emulator.`;

/** Runs the CLI with the given arguments and returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let code = 0;
  const debug = argv.includes("--debug");
  const parser = yargs(argv)
    .scriptName("carte")
    .usage("$0 <command> [options]")
    .option("config", {
      alias: "c",
      type: "string",
      default: "carte.yaml",
      describe: "Path of the project file",
    })
    .option("color", { type: "boolean", describe: "Colour output (default: on a terminal, unless NO_COLOR)" })
    .option("debug", { type: "boolean", default: false, describe: "Show stack traces of errors" })
    .command(
      "plan",
      "Show the changes that would make the platform match the files",
      (y) =>
        y
          .option("json", { type: "boolean", default: false, describe: "Print the plan as JSON" })
          .option("out", { type: "string", describe: "Save the plan to FILE for `carte apply FILE`" })
          .option("detailed-exitcode", {
            type: "boolean",
            default: false,
            describe: "Exit 0 when there are no changes, 2 when there are, 1 on error",
          }),
      async (args) => {
        code = await runPlan(
          {
            config: args.config,
            json: args.json,
            out: args.out,
            detailedExitcode: args["detailed-exitcode"],
            color: args.color,
          },
          io,
        );
      },
    )
    .command(
      "apply [planfile]",
      "Make the changes (from a fresh plan, or from a saved plan file)",
      (y) =>
        y
          .positional("planfile", { type: "string", describe: "A plan saved with `carte plan --out`" })
          .option("auto-approve", {
            type: "boolean",
            default: false,
            describe: "Do not ask for confirmation",
          })
          .option("json", { type: "boolean", default: false, describe: "Print the apply report as JSON" }),
      async (args) => {
        code = await runApply(
          {
            config: args.config,
            planFile: args.planfile,
            autoApprove: args["auto-approve"],
            json: args.json,
            color: args.color,
          },
          io,
        );
      },
    )
    .command(
      "validate",
      "Check the files without calling the platform",
      (y) => y,
      async (args) => {
        code = await runValidate({ config: args.config, color: args.color }, io);
      },
    )
    .command(
      "emulator",
      "Serve the platform API locally (stateful emulator)",
      (y) =>
        y
          .option("host", { type: "string", default: "127.0.0.1", describe: "Address to listen on" })
          .option("port", { type: "number", default: 8787, describe: "Port (0: any free port)" })
          .option("seed", { type: "string", describe: "YAML or JSON file of clients and their stores" })
          .option("state", { type: "string", describe: "File that keeps the state across restarts" })
          .option("apply-delay-ms", {
            type: "number",
            default: 200,
            describe: "Delay before an accepted write becomes visible, in milliseconds",
          })
          .option("verbose", { type: "boolean", default: false, describe: "Log one line per request" }),
      async (args) => {
        code = await runEmulator(
          {
            host: args.host,
            port: args.port,
            seed: args.seed,
            state: args.state,
            applyDelayMs: args["apply-delay-ms"],
            verbose: args.verbose,
          },
          io,
        );
      },
    )
    .demandCommand(1, "Name a command: plan, apply, validate or emulator.")
    .strict()
    .epilogue(EPILOGUE)
    .help()
    .version(false)
    .wrap(Math.min(110, io.columns ?? 100))
    .exitProcess(false)
    .fail((msg, err) => {
      throw err ?? new UsageError(msg);
    });
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

if (isMain()) {
  const io: CliIo = {
    out: (s) => void process.stdout.write(s),
    err: (s) => void process.stderr.write(s),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    columns: process.stdout.columns,
    env: process.env,
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
