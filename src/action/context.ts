/**
 * What the runner tells a step about its run (GitHub Actions' default environment variables and the
 * event payload at `GITHUB_EVENT_PATH`): the event, the repository, the commit, the pull request and
 * the run's address. Read once per run; nothing here calls GitHub.
 */

import { readFileSync } from "node:fs";

/** The run as the Action sees it. */
export interface ActionContext {
  /** `GITHUB_EVENT_NAME`: pull_request, push, schedule, workflow_dispatch… */
  eventName: string;
  /** `GITHUB_REPOSITORY`, `owner/repo`. */
  repository: string | undefined;
  /** `GITHUB_API_URL`, default https://api.github.com. */
  apiUrl: string;
  /** `GITHUB_SERVER_URL`, default https://github.com. */
  serverUrl: string;
  /** `GITHUB_SHA`: the commit the workflow runs on (for a pull request: GitHub's test merge). */
  sha: string | undefined;
  /** `GITHUB_REF`: the ref the workflow runs on; for a push, the branch pushed (`refs/heads/main`). */
  ref: string | undefined;
  /** `GITHUB_WORKSPACE`, else the working directory: file paths of annotations are relative to it. */
  workspace: string;
  /** The address of this workflow run (and attempt), when the runner says it. */
  runUrl: string | undefined;
  /** `GITHUB_RUN_ID`, digits only; undefined when the runner says none. */
  runId: string | undefined;
  /** `GITHUB_RUN_ATTEMPT`: 1 for the first run, 2 for the first re-run… */
  runAttempt: number;
  /** The pull request of a `pull_request` (or `pull_request_target`) event. */
  pullRequest?: {
    number: number;
    /** The head commit of the pull request (what its author pushed). */
    headSha: string | undefined;
    /** The base commit the pull request is compared with. */
    baseSha: string | undefined;
    /** The base branch's name. */
    baseRef: string | undefined;
  };
}

interface EventPayload {
  pull_request?: {
    number?: number;
    head?: { sha?: string };
    base?: { sha?: string; ref?: string };
  };
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** Reads the run's context from the environment; an unreadable event payload counts as empty. */
export function readContext(env: NodeJS.ProcessEnv): ActionContext {
  let event: EventPayload = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as EventPayload;
    } catch {
      event = {};
    }
  }
  const serverUrl = (env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "");
  const repository = str(env.GITHUB_REPOSITORY);
  const given = Number(env.GITHUB_RUN_ATTEMPT ?? "1");
  const attempt = Number.isSafeInteger(given) && given > 1 ? given : 1;
  const runId = env.GITHUB_RUN_ID && /^\d+$/.test(env.GITHUB_RUN_ID) ? env.GITHUB_RUN_ID : undefined;
  const runUrl =
    repository && runId
      ? `${serverUrl}/${repository}/actions/runs/${runId}${attempt > 1 ? `/attempts/${attempt}` : ""}`
      : undefined;
  const pr = event.pull_request;
  return {
    eventName: env.GITHUB_EVENT_NAME ?? "",
    repository,
    apiUrl: (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, ""),
    serverUrl,
    sha: str(env.GITHUB_SHA),
    ref: str(env.GITHUB_REF),
    workspace: env.GITHUB_WORKSPACE || process.cwd(),
    runUrl,
    runId,
    runAttempt: attempt,
    ...(pr && typeof pr.number === "number"
      ? {
          pullRequest: {
            number: pr.number,
            headSha: str(pr.head?.sha),
            baseSha: str(pr.base?.sha),
            baseRef: str(pr.base?.ref),
          },
        }
      : {}),
  };
}
