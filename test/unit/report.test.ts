/** The apply report's views (src/render/apply-report.ts): text as `carte apply` prints it, Markdown, JSON. */

import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LoadedProject } from "../../src/config/index.js";
import { buildPlan } from "../../src/plan/plan.js";
import type { Plan } from "../../src/plan/types.js";
import { renderReport, renderReportJson, renderReportMarkdown } from "../../src/render/apply-report.js";
import { oneHost, type PlatformHosts } from "../../src/platform/routes.js";
import { describeTarget, runTarget } from "../../src/run/session.js";
import type { ApplyReport } from "../../src/apply/report.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";

function plan(): Plan {
  const want = store("bog-centro", "900101", (s) => {
    catalogOf(s).items = { FRIES: item("FRIES", 7900, { title: "Fries" }) };
  });
  return buildPlan(desired(want), current(store("bog-centro", "900101")));
}

const ok: ApplyReport = {
  operations: [{ id: "a", method: "POST", path: "/menu", status: "ok", durationMs: 12 }],
  failed: 0,
  skipped: 0,
  pending: [],
  waitedMs: 40,
};

const broken: ApplyReport = {
  operations: [
    { id: "a", method: "POST", path: "/menu", status: "ok", durationMs: 12 },
    {
      id: "b",
      method: "PUT",
      path: "/webhook/A|B/change-url",
      status: "failed",
      message: "HTTP 400: <script>x</script>\nsecond line",
      durationMs: 3,
    },
    {
      id: "c",
      method: "PUT",
      path: "/store/1",
      status: "skipped",
      message: "a call it depends on failed",
      durationMs: 0,
    },
  ],
  failed: 1,
  skipped: 1,
  pending: ["store[bog-centro].item[FRIES]"],
  waitedMs: 10,
};

describe("apply report", () => {
  it("text: the lines carte apply prints, unchanged", () => {
    const p = plan();
    const s = p.summary;
    expect(renderReport(p, ok, 1234)).toBe(
      `\nApply complete: ${s.create} created, ${s.update} updated, ${s.delete} deleted; 1 API call in 1.2 s. ` +
        "The platform shows every change.\n",
    );
    // Plain values: escaping hostile ones is the output helper's business, not asserted here.
    const plain: ApplyReport = {
      ...broken,
      operations: broken.operations.map((o) =>
        o.status === "failed" ? { ...o, path: "/webhook/A/change-url", message: "HTTP 400: bad url" } : o,
      ),
    };
    expect(renderReport(p, plain, 500)).toBe(
      [
        "",
        "Apply incomplete: 1 of 3 API calls succeeded.",
        "  failed: PUT /webhook/A/change-url: HTTP 400: bad url",
        "  skipped: PUT /store/1: a call it depends on failed",
        "  not yet shown by the platform: store[bog-centro].item[FRIES]",
        "Run `carte apply` again once the cause is fixed: it applies only what is left.",
        "",
      ].join("\n"),
    );
    p.safety.override = { reason: "closing" };
    expect(renderReport(p, ok, 0)).toContain("\nSafety guards were overridden, reason: closing\n");
  });

  it("Markdown: the verdict with 'Applied N API calls.', and a table that values cannot break", () => {
    const p = plan();
    expect(renderReportMarkdown(p, ok)).toContain("Applied 1 API call. The platform shows every change.");
    const md = renderReportMarkdown(p, broken);
    expect(md).toContain("**Apply incomplete**: Applied 1 API call of 3; 1 failed, 1 skipped.");
    expect(md).toContain(
      // src/render/escape.ts escapeMarkdown: character references, the line break shown as `\n`.
      "| failed | <code>PUT /webhook/A&#124;B/change-url</code> | HTTP 400: &lt;script&gt;x&lt;/script&gt;&#92;nsecond line |",
    );
    expect(md).not.toContain("<script>");
    // One table row per troubled call, every row on one line.
    expect(md.split("\n").filter((l) => l.startsWith("| failed") || l.startsWith("| skipped"))).toHaveLength(
      2,
    );
    expect(md).toContain(
      "Not yet shown by the platform: <code>store&#91;bog-centro&#93;.item&#91;FRIES&#93;</code>",
    );
    expect(renderReportMarkdown(p, broken, { maxRows: 1 })).toContain("_1 more not shown._");
  });

  it("JSON: the report with the plan's summary and safety; an empty apply has no calls", () => {
    const p = plan();
    const full = JSON.parse(renderReportJson(p, ok)) as Record<string, unknown>;
    expect(full).toEqual({ summary: p.summary, safety: p.safety, ...ok });
    expect(JSON.parse(renderReportJson(p, undefined))).toEqual({
      summary: p.summary,
      operations: [],
      pending: [],
    });
  });
});

describe("where a run goes", () => {
  const project = (platform?: string | PlatformHosts) =>
    ({
      root: "/work/chain",
      platform:
        platform === undefined
          ? undefined
          : { hosts: typeof platform === "string" ? oneHost(platform) : platform, requestsPerSecond: 10 },
    }) as unknown as LoadedProject;

  it("names the embedded emulator with its state folder, relative to the working directory", () => {
    const target = runTarget(project());
    expect(target).toEqual({ kind: "emulator", stateDir: path.join("/work/chain", ".carte") });
    expect(describeTarget(target, "/work")).toBe("embedded emulator (state in chain/.carte)");
    expect(describeTarget(target, "/elsewhere")).toBe("embedded emulator (state in /work/chain/.carte)");
  });

  it("names the platform by its host only: no user name, password, path or query", () => {
    const target = runTarget(project("https://user:hunter2@api.example.com:8443/v1?token=abc"));
    expect(target).toEqual({ kind: "platform", host: "api.example.com:8443" });
    expect(describeTarget(target)).toBe("platform at api.example.com:8443");
  });

  it("names each host of a platform whose API groups live apart, with its groups", () => {
    const newer = "https://api.example.com/v1";
    const older = "https://user:pw@services.example.com:8443/?token=abc";
    const target = runTarget(
      project({
        auth: newer,
        menu: newer,
        finance: newer,
        availability: older,
        webhooks: older,
        utils: older,
      }),
    );
    expect(describeTarget(target)).toBe(
      "platform at api.example.com (auth, menu, finance) and services.example.com:8443 (availability, webhooks, utils)",
    );
    expect(describeTarget(target)).not.toMatch(/pw|token|v1/);
  });

  it("says the target shows every change at the end of an apply, escaped", () => {
    const p = plan();
    expect(renderReport(p, ok, 300, "embedded emulator (state in examples/chain/.carte)")).toContain(
      "in 0.3 s. The embedded emulator (state in examples/chain/.carte) shows every change.\n",
    );
    expect(renderReport(p, ok, 0, "platform at evil\u001b[2J")).toContain(
      "The platform at evil\\x1b[2J shows every change.",
    );
    expect(renderReport(p, broken, 0, "platform at api.example.com")).toContain(
      "\nApply incomplete against the platform at api.example.com: 1 of 3 API calls succeeded.\n",
    );
    expect(renderReportMarkdown(p, broken, { target: "platform at api.example.com" })).toContain(
      "**Apply incomplete** against the platform at api.example.com: Applied 1 API call of 3",
    );
    expect(renderReportMarkdown(p, ok, { target: "platform at api.example.com" })).toContain(
      "Applied 1 API call. The platform at api.example.com shows every change.",
    );
  });
});
