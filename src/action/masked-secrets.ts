/**
 * Where the GitHub Action keeps the webhook secrets that calls return: the GitHub Actions sink the CLI
 * uses in a job (src/run/secrets.ts `githubActionsSink`). Every secret is masked first (`::add-mask::`, so
 * that the runner hides it in every later log line), then saved in the secrets file when one is named
 * (input `secrets-file`, else `CARTE_SECRETS_FILE`, else carte.yaml `secrets_file:`), and only there;
 * when none is named, set as the step output `webhook_secret_<EVENT>` (action.yml declares one per
 * event). The secret is written nowhere else: not to the log, the summary or a comment.
 */

import path from "node:path";
import * as core from "@actions/core";
import { rootFor } from "../atomic.js";
import type { ProjectPlatform } from "../config/platforms.js";
import { githubActionsSink, secretsFileName, secretsFileSink, type SecretSink } from "../run/secrets.js";

/**
 * The secrets file a run of the Action uses: the input `secrets-file` (relative to the working
 * directory, like `config`), else `CARTE_SECRETS_FILE`, else carte.yaml `secrets_file:` (`configured`,
 * absolute); `undefined` when none is named. Of a platform of carte.yaml `platforms:`, a file of its own
 * beside it (`webhook-secrets.co.json`; src/run/secrets.ts `secretsFileName`), as the CLI's.
 */
export function actionSecretsFile(opts: {
  input: string;
  env: NodeJS.ProcessEnv;
  configured: string | undefined;
  /** The project folder: a secrets file inside it stays under it (src/atomic.ts `rootFor`). */
  projectRoot?: string | undefined;
  /** The platform the run is of (`LoadedProject.platformOf`). */
  platform?: Pick<ProjectPlatform, "name" | "rehearsal"> | undefined;
}): SecretSink | undefined {
  const name = secretsFileName({
    file: opts.input || undefined,
    configured: opts.configured,
    env: opts.env,
    platform: opts.platform,
  });
  return name
    ? secretsFileSink(path.resolve(name), name, rootFor(path.resolve(name), opts.projectRoot))
    : undefined;
}

/**
 * The Action's sink: mask, then the secrets file when one is named, else the step output (through
 * `core.setOutput`, as the Action's other outputs).
 *
 * @param file - the secrets file ({@link actionSecretsFile}), or `undefined`.
 * @param env - the run's environment: `GITHUB_OUTPUT`, the step outputs file.
 * @param out - standard output, where the runner reads the mask command.
 */
export function actionSecretSink(
  file: SecretSink | undefined,
  env: NodeJS.ProcessEnv,
  out: (text: string) => void = (text) => void process.stdout.write(text),
): SecretSink {
  return githubActionsSink({
    out,
    outputFile: env.GITHUB_OUTPUT || undefined,
    file,
    setOutput: (name, value) => core.setOutput(name, value),
  });
}
