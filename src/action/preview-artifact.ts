/**
 * The Action's menu preview (input `preview`, docs/github-action.md): after a plan on a pull request,
 * the preview site of the stores it changes (or of all its stores) is written under the runner's
 * temporary folder through the library path `carte preview` uses (src/preview-site.ts), uploaded as a
 * workflow artifact, and linked from the plan comment and the job summary.
 *
 * The upload goes through an uploader given to the Action ({@link PreviewUploader}); the default is
 * GitHub's own artifact client, `@actions/artifact`, which the runner authorises for the run
 * (`ACTIONS_RUNTIME_TOKEN`, given to every JavaScript action) and which returns the artifact's id.
 */

import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LoadedProject } from "../config/index.js";
import type { Plan } from "../plan/types.js";
import { writePreview, type PreviewSelection } from "../preview-site.js";
import type { PreviewNote } from "../render/markdown.js";
import type { ActionContext } from "./context.js";

/** Input `preview`: which stores the preview shows, or none. */
export type PreviewInput = PreviewSelection | "off";

/** What an upload returns: the artifact's id (its page's address ends with it) and its size in bytes. */
export interface UploadedArtifact {
  id: number | undefined;
  size?: number | undefined;
}

/**
 * Uploads `files` (absolute paths under `root`, kept relative to it in the artifact) as the workflow
 * artifact `name`. Throws when the upload fails.
 */
export type PreviewUploader = (name: string, files: string[], root: string) => Promise<UploadedArtifact>;

/**
 * The default uploader: GitHub's artifact client (`@actions/artifact`, v2 and later, the one the
 * `actions/upload-artifact` action uses), loaded when a preview is first uploaded. Zip level 6, the
 * client's default; the repository's retention setting.
 */
export const artifactUploader: PreviewUploader = async (name, files, root) => {
  const { DefaultArtifactClient } = await import("@actions/artifact");
  const uploaded = await new DefaultArtifactClient().uploadArtifact(name, files, root);
  return { id: uploaded.id, size: uploaded.size };
};

/**
 * Why GitHub's artifact client cannot upload from this run, or `undefined` when it can: it needs the
 * results service the runner names in `ACTIONS_RESULTS_URL` and the token in `ACTIONS_RUNTIME_TOKEN`,
 * which GitHub's runners give JavaScript actions; GitHub Enterprise Server has no such service, and a run
 * outside GitHub Actions (a local runner of actions) neither.
 */
export function artifactStorageMissing(env: NodeJS.ProcessEnv): string | undefined {
  if (env.ACTIONS_RESULTS_URL && env.ACTIONS_RUNTIME_TOKEN) return undefined;
  return (
    "this run has no artifact storage to upload it to (ACTIONS_RESULTS_URL and ACTIONS_RUNTIME_TOKEN " +
    "are not both set: GitHub Enterprise Server, or a run outside GitHub Actions)"
  );
}

/**
 * The artifact's name: `carte-preview`, with the platform, the stage, the shard and the run attempt
 * after a first one, so that each job of a run (and each re-run) uploads its own: an artifact's name is unique in a
 * workflow run.
 */
export function previewArtifactName(
  ctx: Pick<ActionContext, "runAttempt">,
  shard: { index: number; count: number } | undefined,
  stage: string | undefined,
  platform?: string | undefined,
): string {
  return [
    "carte-preview",
    ...(platform !== undefined && /^[a-z][a-z0-9-]{0,30}$/.test(platform) ? [`platform-${platform}`] : []),
    ...(stage !== undefined && /^[a-z][a-z0-9_-]{0,39}$/.test(stage) ? [`stage-${stage}`] : []),
    ...(shard ? [`shard-${shard.index}-of-${shard.count}`] : []),
    ...(ctx.runAttempt > 1 ? [`attempt-${ctx.runAttempt}`] : []),
  ].join("-");
}

/** The most characters of an upload error's message the comment shows. */
const MAX_REASON = 200;

/**
 * Why an upload failed, fit for a comment: the first line of the error's message, cut to
 * {@link MAX_REASON} characters, with the query and fragment of every URL left out (a storage URL
 * carries its signature there). The caller escapes it.
 */
export function uploadFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const line = (message.split(/\r?\n/)[0] ?? "").replace(/(https?:\/\/[^\s?#]*)[?#]\S*/gi, "$1");
  const cut = line.length > MAX_REASON ? `${line.slice(0, MAX_REASON)}…` : line;
  return `the preview could not be uploaded (${cut.trim() || "no reason given"})`;
}

/** What the preview needs of the run. */
export interface PreviewRequest {
  /** Which stores; `off` is not asked for. */
  select: PreviewSelection;
  plan: Plan;
  project: Pick<LoadedProject, "desired">;
  /** The pull request's own changes (addresses, apart from drift), when the plan was split against a base. */
  changes?: readonly string[] | undefined;
  /** The artifact's name ({@link previewArtifactName}). */
  name: string;
  /** The runner's temporary folder (`RUNNER_TEMP`); the system's when empty. */
  temp: string | undefined;
  ctx: Pick<ActionContext, "serverUrl" | "repository" | "runId">;
  upload: PreviewUploader;
}

/**
 * Writes the preview into a new folder under the runner's temporary folder and uploads it. Returns
 * what the comment says: the stores and the artifact's address, or why there is none; `undefined` when
 * no store is selected (nothing is uploaded then). Never throws: a preview that cannot be made or
 * uploaded must not keep the plan from being posted.
 */
export async function uploadPreview(request: PreviewRequest): Promise<PreviewNote | undefined> {
  let stores = 0;
  try {
    const root = await mkdtemp(path.join(request.temp || tmpdir(), "carte-preview-"));
    const written = await writePreview({
      plan: request.plan,
      project: request.project,
      out: root,
      root,
      select: request.select,
      changes: request.changes,
    });
    stores = written.stores;
    if (stores === 0) return undefined;
    const uploaded = await request.upload(request.name, written.files, root);
    const { serverUrl, repository, runId } = request.ctx;
    if (uploaded.id === undefined || !repository || !runId) {
      return { stores, failure: "the artifact was uploaded, but GitHub gave no address for it" };
    }
    return { stores, url: `${serverUrl}/${repository}/actions/runs/${runId}/artifacts/${uploaded.id}` };
  } catch (err) {
    return { stores, failure: uploadFailure(err) };
  }
}
