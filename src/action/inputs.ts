/**
 * The Action's inputs (action.yml): read from the environment the runner sets and checked, and the
 * GitHub REST client they give.
 */

import * as core from "@actions/core";
import { UsageError } from "../errors.js";
import { DEFAULT_BOT_LOGIN, GitHubRepo } from "../gitops/github.js";
import { reviewKey, type ReviewKey } from "../gitops/reviewed.js";
import { parseShard, type Shard } from "../gitops/shard.js";
import type { ActionContext } from "./context.js";
import type { PreviewInput, PreviewUploader } from "./preview-artifact.js";

/** The Action's commands. */
export type ActionCommand = "plan" | "apply" | "drift" | "report";

/** The Action's inputs (action.yml), read from the environment the runner sets. */
export interface ActionInputs {
  command: ActionCommand;
  config: string;
  comment: boolean;
  githubToken: string;
  force: { reason: string } | undefined;
  /** Input `secrets-file`; empty: `CARTE_SECRETS_FILE`, else carte.yaml `secrets_file:`. */
  secretsFile: string;
  /** Input `base`: `auto` (the pull request's base commit), `none`, or a git ref. */
  base: string;
  /** Input `apply-unreviewed`: on a merge, apply what the reviewed plan did not show too. */
  applyUnreviewed: boolean;
  /** Input `shard`: `K/N`. */
  shard: Shard | undefined;
  /** Input `stage`: one stage of carte.yaml `rollout:` alone (src/apply/rollout.ts); empty: every stage. */
  stage: string | undefined;
  /** Input `plan-out`: where `plan` and `drift` write their run record (default with a shard). */
  planOut: string;
  /** Input `plans`: `report`'s run records, glob patterns one per line. */
  plans: string[];
  /** Input `comment-author`: the login whose comments and issues are carte's. */
  commentAuthor: string;
  /**
   * Input `scope` of `plan`: `all` (default) or `changed`: read and plan only what the pull request's
   * files can touch (src/gitops/change-scope.ts), when there is a base to compare with.
   */
  scope: "all" | "changed";
  /**
   * The key of the reviewed-plan records (src/gitops/reviewed.ts), from input `review-key`, else
   * `CARTE_REVIEW_KEY`; undefined when neither is set (the plan then writes no record, and the merge
   * applies nothing as reviewed).
   */
  reviewKey: ReviewKey | undefined;
  /**
   * Input `git-lock` (default true): apply under the lock across machines, `refs/carte/lock` of the
   * checkout's `origin` when carte.yaml names no `lock:` (src/gitops/ref-lock.ts); false: none.
   */
  gitLock: boolean;
  /**
   * Input `preview` of `plan` on a pull request: `changed` (default) uploads the menu preview of the
   * stores the pull request changes, `all` of every store planned, `off` none
   * (src/action/preview-artifact.ts).
   */
  preview: PreviewInput;
  /**
   * Input `platform`: the platforms (countries) of carte.yaml `platforms:` to run, in the order given
   * (src/action/platforms.ts); empty: every platform of carte.yaml, or the one platform of a project
   * without `platforms:`.
   */
  platforms: string[];
  /**
   * Input `rehearsal`: run on each platform's development host, with its test stores in place of the
   * production stores (carte.yaml `platforms: NAME: development:`).
   */
  rehearsal: boolean;
}

/** What the Action is given besides its environment: the artifact upload, replaced in tests. */
export interface ActionDeps {
  /** Uploads the menu preview; default GitHub's artifact client (src/action/preview-artifact.ts). */
  uploadArtifact?: PreviewUploader;
}

const COMMANDS: readonly ActionCommand[] = ["plan", "apply", "drift", "report"];

/** A platform's name in carte.yaml `platforms:` (the schema's pattern). */
export const PLATFORM_NAME = /^[a-z][a-z0-9-]{0,30}$/;

/** The most platforms the input `platform` may name. */
const MAX_PLATFORMS = 64;

/**
 * Input `platform`: names separated by commas or new lines, each a platform name ({@link PLATFORM_NAME}),
 * repeats dropped. Throws {@link UsageError} naming the first bad one (quoted as JSON, at most 40
 * characters of it).
 */
export function parsePlatformInput(text: string): string[] {
  const names = text
    .split(/[,\n]/)
    .map((n) => n.trim())
    .filter((n) => n !== "");
  for (const n of names) {
    if (!PLATFORM_NAME.test(n)) {
      throw new UsageError(
        `input platform: ${JSON.stringify(n.slice(0, 40))} is not a platform name (a-z, 0-9 and -, starting with a letter, at most 31 characters)`,
      );
    }
  }
  const unique = [...new Set(names)];
  if (unique.length > MAX_PLATFORMS)
    throw new UsageError(`input platform names ${unique.length} platforms; at most ${MAX_PLATFORMS}`);
  return unique;
}

/** The review key's secret as the workflow gives it: input `review-key`, else `CARTE_REVIEW_KEY`. */
export function reviewSecret(env: NodeJS.ProcessEnv): string {
  return core.getInput("review-key") || env.CARTE_REVIEW_KEY || "";
}

/**
 * Reads and checks the inputs (`INPUT_*`, and `CARTE_REVIEW_KEY` from `env`). Throws on a bad value,
 * never quoting the review key.
 */
export function readInputs(env: NodeJS.ProcessEnv = process.env): ActionInputs {
  const command = core.getInput("command") || "plan";
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new UsageError(`input command must be plan, apply, drift or report, got ${command}`);
  const bool = (name: string, dflt: boolean) => {
    const v = core.getInput(name).trim().toLowerCase();
    if (v === "") return dflt;
    if (v === "true" || v === "false") return v === "true";
    throw new UsageError(`input ${name} must be true or false, got ${v}`);
  };
  const reason = core.getInput("force-reason");
  const shard = core.getInput("shard").trim();
  const scope = core.getInput("scope").trim().toLowerCase() || "all";
  if (scope !== "all" && scope !== "changed")
    throw new UsageError(`input scope must be all or changed, got ${scope}`);
  const preview = core.getInput("preview").trim().toLowerCase() || "changed";
  if (preview !== "changed" && preview !== "all" && preview !== "off")
    throw new UsageError(`input preview must be changed, all or off, got ${preview}`);
  return {
    command: command as ActionCommand,
    config: core.getInput("config") || "carte.yaml",
    comment: bool("comment", true),
    githubToken: core.getInput("github-token"),
    force: reason ? { reason } : undefined,
    secretsFile: core.getInput("secrets-file"),
    base: core.getInput("base").trim() || "auto",
    applyUnreviewed: bool("apply-unreviewed", false),
    shard: shard ? parseShard(shard, "input shard") : undefined,
    stage: core.getInput("stage").trim() || undefined,
    planOut: core.getInput("plan-out").trim(),
    plans: core
      .getInput("plans")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== ""),
    commentAuthor: core.getInput("comment-author").trim() || DEFAULT_BOT_LOGIN,
    scope,
    reviewKey: reviewSecret(env) ? reviewKey(reviewSecret(env)) : undefined,
    gitLock: bool("git-lock", true),
    preview,
    platforms: parsePlatformInput(core.getInput("platform")),
    rehearsal: bool("rehearsal", false),
  };
}

/** The REST client, when there is a token and a repository to call. */
export function gitHub(inputs: ActionInputs, ctx: ActionContext): GitHubRepo | undefined {
  if (!inputs.githubToken || !ctx.repository) return undefined;
  return new GitHubRepo({ apiUrl: ctx.apiUrl, repository: ctx.repository, token: inputs.githubToken });
}
