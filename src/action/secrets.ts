/**
 * Where the GitHub Action keeps the webhook secrets that calls return (issue 9 item 5, issue 10 item 5):
 * every secret is masked first (`core.setSecret`, the `::add-mask::` workflow command, so that the
 * runner hides it in every later log line), then set as the step output `webhook_secret_<EVENT>` (the
 * name the CLI uses in GitHub Actions, src/secrets.ts `githubOutputName`; action.yml declares one per
 * event), then saved in the secrets file when one is configured (input `secrets-file`, else
 * `CARTE_SECRETS_FILE`, else carte.yaml `secrets_file:`). Never dropped: without a file the masked
 * output still carries it. The secret is written nowhere else: not to the log, the summary or a comment.
 */

import path from "node:path";
import * as core from "@actions/core";
import { rootFor } from "../atomic.js";
import { githubOutputName, secretsFileSink, type SecretSink } from "../secrets.js";

/**
 * The secrets file a run of the Action uses: the input `secrets-file` (relative to the working
 * directory, like `config`), else `CARTE_SECRETS_FILE`, else carte.yaml `secrets_file:` (`configured`,
 * absolute); `undefined` when none is named.
 */
export function actionSecretsFile(opts: {
  input: string;
  env: NodeJS.ProcessEnv;
  configured: string | undefined;
  /** The project folder: a secrets file inside it stays under it (src/atomic.ts `rootFor`). */
  projectRoot?: string | undefined;
}): SecretSink | undefined {
  const name = opts.input || opts.env.CARTE_SECRETS_FILE || opts.configured;
  return name
    ? secretsFileSink(path.resolve(name), name, rootFor(path.resolve(name), opts.projectRoot))
    : undefined;
}

/**
 * The Action's sink: mask, step output, then the secrets file when given. Rejects when the file cannot
 * be written, naming the file and the output that still holds the secret, never the secret.
 */
export function actionSecretSink(file: SecretSink | undefined): SecretSink {
  return {
    where: (event) => `the step output ${githubOutputName(event)}${file ? ` and ${file.where(event)}` : ""}`,
    async put(event, secret) {
      core.setSecret(secret);
      core.setOutput(githubOutputName(event), secret);
      if (!file) return;
      try {
        await file.put(event, secret);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new Error(
          `${why}; the secret is in the step output ${githubOutputName(event)} of this run only`,
        );
      }
    },
  };
}
