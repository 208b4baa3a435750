/**
 * `--help` of every command, as golden files (test/golden/expected/help/): a change of a command's
 * options or wording shows in review. The CLI runs in-process (yargs prints help with console.log) at
 * its default width of 100 columns. `completion --help` prints the completion script itself.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { EMULATOR_MAX_BODY_BYTES_SHOWN, runCli } from "../../src/cli/main.js";
import { DEFAULT_MAX_BODY_BYTES } from "../../src/emulator/index.js";
import type { CliIo } from "../../src/cli/io.js";

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
