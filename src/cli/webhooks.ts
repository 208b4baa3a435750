/**
 * `carte webhooks ...`: webhook operations that are not a plan.
 *
 *   carte webhooks rotate-secret EVENT [--secrets-file FILE]
 *
 * `rotate-secret` calls `PUT /webhook/{event}/reset-secret` (docs/platform-api.md §4.5: no body, answers
 * `{event, stores, secret}` with a new secret) and keeps the new secret in the secrets sink
 * (src/run/secrets.ts): the file named by `--secrets-file`, `CARTE_SECRETS_FILE` or carte.yaml `secrets_file:`,
 * or, in GitHub Actions,
 * the masked step output `webhook_secret_<EVENT>`. It refuses to run without a sink, or when the sink
 * cannot be written (checked before the call), since the old secret stops working once the new one is
 * made. A successful rotation clears the event's marker of a lost secret. The secret is never printed.
 */

import type { Argv, CommandModule } from "yargs";
import { loadProject } from "../config/index.js";
import { CommandLineError, ExitCode, SecretError } from "../errors.js";
import { resetSecret } from "../platform/webhook-calls.js";
import { eventSecret, prepareEvents, resolveSecretSink } from "../run/secrets.js";
import { escapeTerminal } from "../render/escape.js";
import { openSession } from "../run/session.js";
import { choosePlatforms } from "../run/each-platform.js";
import { platformLoad } from "../run/step-load.js";
import { platformChoice, platformFlags, type PlatformScope } from "./platform-sections.js";
import { printWarnings, type CliIo } from "./io.js";

/** Options of `carte webhooks rotate-secret`. */
export interface RotateSecretCommand {
  config: string;
  event: string;
  secretsFile: string | undefined;
  /** `--platform NAME`: the platform of carte.yaml `platforms:` whose webhook it is (one). */
  platforms?: string[] | undefined;
  /** `--rehearsal`: the platform's development host. */
  rehearsal?: boolean | undefined;
}

/**
 * The one platform of carte.yaml `platforms:` a command for one platform works on (`--platform`, or the
 * project's only one); none for a project without `platforms:`.
 *
 * @throws {@link CommandLineError} when carte.yaml names several and `--platform` does not pick one.
 */
async function onePlatform(opts: RotateSecretCommand): Promise<PlatformScope> {
  const names = await choosePlatforms(opts.config, opts.platforms, opts.rehearsal);
  if (names.length > 1) {
    throw new CommandLineError(
      "rotate-secret rotates the secret of one platform's webhook: name it with --platform NAME (carte.yaml names several platforms)",
    );
  }
  return platformLoad({ platform: names[0], rehearsal: opts.rehearsal });
}

/** `carte webhooks rotate-secret EVENT`. */
export async function runRotateSecret(opts: RotateSecretCommand, io: CliIo): Promise<number> {
  const project = await loadProject(opts.config, await onePlatform(opts));
  printWarnings(project.warnings, io);
  const sink = resolveSecretSink({
    file: opts.secretsFile,
    configured: project.secretsFile,
    projectRoot: project.root,
    env: io.env,
    out: io.out,
    platform: project.platformOf,
  });
  if (!sink) {
    throw new CommandLineError(
      "rotate-secret needs a place for the new secret, which the platform shows only once: " +
        "--secrets-file FILE, CARTE_SECRETS_FILE or secrets_file: in carte.yaml (in GitHub Actions, " +
        `the step output webhook_secret_${opts.event})`,
    );
  }
  const session = await openSession(project, { env: io.env });
  try {
    // The old secret stops working once the new one is made: the sink proves it can keep the new one
    // first, and marks it as on its way until it is saved (src/run/secrets.ts).
    await prepareEvents(sink, [opts.event]);
    let answer: unknown;
    try {
      answer = await resetSecret(session.client, opts.event);
    } catch (err) {
      await sink.release?.([opts.event]);
      throw err;
    }
    const found = eventSecret(answer);
    if (!found) {
      throw new SecretError(
        `the platform rotated the secret of the ${opts.event} webhook but its answer held no secret; ` +
          "run the command again",
      );
    }
    try {
      await sink.put(opts.event, found.secret);
    } catch (err) {
      const why = (err instanceof Error ? err.message : String(err)).split(found.secret).join("[REDACTED]");
      throw new SecretError(
        `the secret of the ${opts.event} webhook was rotated, but the new one could not be kept: ${why}. ` +
          "Fix the cause and run the command again (the secret it got is lost)",
      );
    }
    io.out(escapeTerminal(`rotated; the new secret is in ${sink.where(opts.event)}`) + "\n");
    return ExitCode.ok;
  } finally {
    await session.close();
  }
}

/** The `webhooks` command group, for yargs; `setCode` receives the exit code. */
export function webhooksCommand<T extends { config: string }>(
  io: CliIo,
  setCode: (code: number) => void,
): CommandModule<T, T> {
  return {
    command: "webhooks",
    describe: "Webhook operations outside a plan (rotate-secret)",
    builder: (y: Argv<T>) =>
      y
        .command(
          "rotate-secret <event>",
          "Make a new secret for an event's webhook and keep it in the secrets file (never printed)",
          (c) =>
            platformFlags(c)
              .positional("event", {
                type: "string",
                demandOption: true,
                describe: "Event name, e.g. NEW_ORDER",
              })
              .option("secrets-file", {
                type: "string",
                describe:
                  "JSON or YAML file (event → secret) to keep the new secret in; default CARTE_SECRETS_FILE",
              }),
          async (args) => {
            setCode(
              await runRotateSecret(
                {
                  config: args.config,
                  event: args.event,
                  secretsFile: args["secrets-file"],
                  ...platformChoice(args),
                },
                io,
              ),
            );
          },
        )
        .demandCommand(1, "Name a webhooks command: rotate-secret.") as unknown as Argv<T>,
    handler: () => {},
  };
}
