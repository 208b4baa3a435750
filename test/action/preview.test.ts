/**
 * The Action's menu preview (input `preview`), run in-process: the example chain applied to the
 * emulator, one price changed in one store's file, and the plan posted on pull request 7 of a small
 * fake of GitHub's comment endpoints on loopback. The artifact upload is a fake given to `runAction`,
 * which keeps the files it is handed.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ActionDeps } from "../../src/action/inputs.js";
import { runAction } from "../../src/action/main.js";
import type { PreviewUploader } from "../../src/action/preview-artifact.js";
import { CLIENT_ID, CLIENT_SECRET, carte, edit, exampleAgainstEmulator } from "../helpers/project.js";
import { fakeGitHub } from "./fake-github.js";

/** One upload the fake received: the artifact's name and its files, relative to the root, with their text. */
interface Upload {
  name: string;
  files: Map<string, string>;
}

/** An uploader that keeps what it is handed and answers artifact id 9001. */
function fakeUploader(uploads: Upload[]): PreviewUploader {
  return (name, files, root) => {
    const kept = new Map<string, string>();
    for (const f of files)
      kept.set(path.relative(root, f).split(path.sep).join("/"), readFileSync(f, "utf8"));
    uploads.push({ name, files: kept });
    return Promise.resolve({ id: 9001, size: 1234 });
  };
}

const ARTIFACT_URL = "https://github.example/chain/menus/actions/runs/4242/artifacts/9001";

const saved = { ...process.env };
// One job-summary file for the whole file: each test reads what its run added.
const dir = mkdtempSync(path.join(tmpdir(), "carte-action-preview-"));
const summaryFile = path.join(dir, "summary.md");
let fx: Awaited<ReturnType<typeof exampleAgainstEmulator>>;
let gh: Awaited<ReturnType<typeof fakeGitHub>>;

beforeAll(async () => {
  fx = await exampleAgainstEmulator([
    "stores/bog-centro.yaml",
    "stores/bog-chapinero.yaml",
    "stores/med-poblado.yaml",
  ]);
  const secrets = ["--secrets-file", path.join(fx.dir, "s.json")];
  expect((await carte(["apply", "--auto-approve", "-q", "-c", fx.config, ...secrets])).code).toBe(0);
  // The pull request: one price of one store.
  edit(path.join(fx.dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
  gh = await fakeGitHub();
});

afterAll(async () => {
  gh.server.close();
  await fx.close();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  process.env = { ...saved };
  process.exitCode = undefined;
  gh.comments.length = 0;
});

/** Runs `command: plan` on pull request 7 with these extra inputs; returns its exit code and job summary part. */
async function planOnPullRequest(
  inputs: Record<string, string>,
  deps: ActionDeps,
): Promise<{ code: number; summary: string }> {
  const event = path.join(dir, "event.json");
  writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
  const output = path.join(dir, "output.txt");
  writeFileSync(summaryFile, "");
  writeFileSync(output, "");
  Object.assign(process.env, {
    CARTE_CLIENT_ID: CLIENT_ID,
    CARTE_CLIENT_SECRET: CLIENT_SECRET,
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_REPOSITORY: "chain/menus",
    GITHUB_RUN_ID: "4242",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_OUTPUT: output,
    RUNNER_TEMP: dir,
    INPUT_COMMAND: "plan",
    INPUT_CONFIG: fx.config,
    "INPUT_GITHUB-TOKEN": "ghs_faketoken123456",
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  });
  const code = await runAction(process.env, deps);
  return { code, summary: readFileSync(summaryFile, "utf8") };
}

describe("Action preview input", () => {
  it("default (changed): uploads the pages of the one store the pull request changes and links the artifact from the comment and the job summary", async () => {
    const uploads: Upload[] = [];
    const { code, summary } = await planOnPullRequest({}, { uploadArtifact: fakeUploader(uploads) });
    expect(code).toBe(0);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.name).toBe("carte-preview");
    expect([...uploads[0]!.files.keys()]).toEqual(["index.html", "stores/bog-centro.html"]);
    // The page shows the price the pull request changes, old and new.
    expect(uploads[0]!.files.get("stores/bog-centro.html")).toMatch(
      /data-field="price"[^>]*>.*25\.900.*26\.900/,
    );
    const line = `Preview of the menus: [1 store](${ARTIFACT_URL})`;
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).toContain(line);
    expect(summary).toContain(line);
  });

  it("preview: all uploads every store of the plan; preview: off uploads nothing and links nothing", async () => {
    const uploads: Upload[] = [];
    expect(
      (await planOnPullRequest({ preview: "all" }, { uploadArtifact: fakeUploader(uploads) })).code,
    ).toBe(0);
    expect([...uploads[0]!.files.keys()].sort()).toEqual([
      "index.html",
      "stores/bog-centro.html",
      "stores/bog-chapinero.html",
      "stores/med-poblado.html",
    ]);
    expect(gh.comments[0]!.body).toContain(`Preview of the menus: [3 stores](${ARTIFACT_URL})`);

    const off = await planOnPullRequest({ preview: "off" }, { uploadArtifact: fakeUploader(uploads) });
    expect(off.code).toBe(0);
    expect(uploads).toHaveLength(1);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).toContain("26.900");
    expect(gh.comments[0]!.body).not.toContain("Preview of the menus");
    expect(off.summary).not.toContain("Preview of the menus");
  });

  it("a failed upload still posts the plan, with a line saying why and no signature of the storage URL", async () => {
    const failing: PreviewUploader = () =>
      Promise.reject(
        new Error(
          "Failed to upload: https://blob.example/artifact.zip?sig=SIGNATURE123&se=2026 [denied]\n    at upload (x.js:1:1)",
        ),
      );
    const { code, summary } = await planOnPullRequest({}, { uploadArtifact: failing });
    expect(code).toBe(0);
    expect(gh.comments).toHaveLength(1);
    const body = gh.comments[0]!.body;
    expect(body).toContain("26.900");
    expect(body).toContain(
      "Preview of the menus (1 store): not available, the preview could not be uploaded (Failed to upload: https://blob.example/artifact.zip &#91;denied&#93;).",
    );
    expect(body + summary).not.toContain("SIGNATURE123");
    expect(body).not.toContain("x.js");
  });

  it("without artifact storage (GitHub Enterprise Server, a run outside GitHub Actions) the comment says why there is no preview", async () => {
    const { code, summary } = await planOnPullRequest({}, {});
    expect(code).toBe(0);
    const line =
      "Preview of the menus (1 store): not available, this run has no artifact storage to upload it to";
    expect(gh.comments[0]!.body).toContain(line);
    expect(summary).toContain(line);
  });

  it("rejects a preview input other than changed, all or off", async () => {
    const { code, summary } = await planOnPullRequest({ preview: "some" }, {});
    expect(code).toBe(1);
    expect(summary).toContain("input preview must be changed, all or off, got some");
    expect(gh.comments).toHaveLength(0);
  });
});
