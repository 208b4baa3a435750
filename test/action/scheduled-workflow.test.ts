/**
 * docs/workflows/carte-scheduled.yml: the files' time-bound entries (a price from a date, a special day
 * of one year) carried out unattended: a scheduled apply of the whole repository, in the apply
 * workflow's concurrency group and under its git lock, so that it never runs beside the apply of a
 * merge. docs/github-action.md shows it whole (npm run check:workflows checks that).
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { repoRoot } from "../helpers/project.js";

interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  concurrency: { group: string; "cancel-in-progress": boolean };
  jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
}

const read = (name: string) =>
  parse(readFileSync(path.join(repoRoot, "docs", "workflows", name), "utf8")) as Workflow;

describe("docs/workflows/carte-scheduled.yml", () => {
  const scheduled = read("carte-scheduled.yml");
  const apply = read("carte-apply.yml");
  const step = Object.values(scheduled.jobs)[0]!.steps.find((s) => /\/carte@/.test(s.uses ?? ""))!;

  it("applies the whole repository on a schedule, with the safety guards (no force, no unreviewed switch)", () => {
    expect(Object.keys(scheduled.on)).toContain("schedule");
    expect(step.with).toMatchObject({ command: "apply", config: "carte.yaml" });
    expect(Object.keys(step.with!)).not.toContain("force-reason");
    expect(Object.keys(step.with!)).not.toContain("apply-unreviewed");
  });

  it("never runs beside another apply: the apply workflow's concurrency group, never cancelled, and the git lock", () => {
    expect(scheduled.concurrency).toEqual(apply.concurrency);
    expect(scheduled.concurrency["cancel-in-progress"]).toBe(false);
    // The lock ref is pushed: contents write, and the git-lock input left on.
    expect(scheduled.permissions.contents).toBe("write");
    expect(step.with?.["git-lock"]).not.toBe(false);
  });
});
