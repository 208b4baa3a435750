/**
 * `--help` of every command, as golden files (test/golden/expected/help/): a change of a command's
 * options or wording shows in review. The CLI runs in-process (yargs prints help with console.log) at
 * its default width of 100 columns. `completion --help` prints the completion script itself.
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EMULATOR_MAX_BODY_BYTES_SHOWN, runCli } from "../../src/cli/main.js";
import { DEFAULT_MAX_BODY_BYTES } from "../../src/emulator/index.js";
import type { CliIo } from "../../src/cli/io.js";
import { repoRoot } from "../helpers/project.js";

const COMMANDS = [
  [],
  ["plan"],
  ["apply"],
  ["preview"],
  ["validate"],
  ["show"],
  ["status"],
  ["init"],
  ["explain"],
  ["import"],
  ["emulator"],
  ["finance"],
  ["finance", "payments"],
  ["finance", "orders"],
  ["finance", "adjustments"],
  ["finance", "cancellations"],
  ["finance", "reconcile"],
  ["webhooks"],
  ["webhooks", "rotate-secret"],
  ["completion"],
];

afterEach(() => {
  vi.restoreAllMocks();
});

async function help(command: string[]): Promise<string> {
  let printed = "";
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    printed += args.map(String).join(" ") + "\n";
  });
  let other = "";
  const io: CliIo = {
    out: (s) => void (printed += s),
    err: (s) => void (other += s),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: {},
  };
  const code = await runCli([...command, "--help"], io);
  expect(code, other).toBe(0);
  expect(other).toBe("");
  return printed;
}

describe("carte --help", () => {
  it.each(COMMANDS.map((c) => [c.join(" ") || "carte", c] as const))("%s", async (name, command) => {
    const text = await help([...command]);
    // The help names its command; `completion --help` prints the completion script.
    expect(text).toContain(
      command[0] === "completion" ? "_carte_yargs_completions" : ["carte", ...command].join(" "),
    );
    await expect(text).toMatchFileSnapshot(`./expected/help/${name.replace(/ /g, "-")}.txt`);
  });
});

it("shows the emulator's own default largest request body in `carte emulator --help`", async () => {
  // The CLI writes the default without loading the emulator; the emulator applies its own.
  expect(EMULATOR_MAX_BODY_BYTES_SHOWN).toBe(String(DEFAULT_MAX_BODY_BYTES));
  expect(await help(["emulator"])).toContain(`[default: ${DEFAULT_MAX_BODY_BYTES}]`);
});

it("lists every option of the README's option table in the help of its command (or of carte)", async () => {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const table = /^\| option +\| meaning +\|\n(?:\|[- |]+\|\n)((?:\|.*\|\n)+)/m.exec(readme);
  expect(table, "the README's option table").not.toBeNull();
  const rows = table![1]!.trim().split("\n");
  expect(rows.length).toBeGreaterThan(10);
  for (const row of rows) {
    const cell = /^\| `(.*?)`(?: \/ `(.*?)`)? +\|/.exec(row)!;
    const written = [cell[1]!, cell[2] ?? ""].join(" ");
    const command = written.split(" ")[0]!;
    // A row that names a command is that command's; one that does not, carte's own (global) option, or
    // one of several commands (the plan's, then).
    const shownBy = command.startsWith("-") ? [] : [command];
    const text = await help(shownBy);
    const other = shownBy.length === 0 ? await help(["plan"]) : "";
    for (const [, flag] of written.matchAll(/(?:^|\s)(--?[a-z][a-z-]*)/g))
      expect(text + other, `README "${written}": ${flag} in carte ${shownBy.join(" ")} --help`).toMatch(
        new RegExp(`(^|[\\s,(])${flag!}\\b`, "m"),
      );
  }
});
