/** Plain progress lines (outside a terminal, CI logs): at most every 10 % or 5 s, never a line twice. */

import { describe, expect, it } from "vitest";
import { createProgress } from "../../src/cli/progress.js";
import type { CliIo } from "../../src/cli/io.js";
import type { ApplyEvent } from "../../src/apply/execute.js";

function ciIo() {
  const lines: string[] = [];
  const io: CliIo = {
    out: () => {},
    err: (s) => void lines.push(...s.split("\n").filter(Boolean)),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: { CI: "true" },
  };
  return { io, lines };
}

const op = (done: number, total: number, status: "ok" | "failed" = "ok"): ApplyEvent =>
  ({
    type: "operation",
    done,
    total,
    result: { method: "POST", path: `/x/${done}`, status, ...(status === "failed" ? { message: "no" } : {}) },
  }) as unknown as ApplyEvent;

describe("progress lines outside a terminal", () => {
  it("print the reads of a large chain at most every 10 %, ending with the total", () => {
    const { io, lines } = ciIo();
    let t = 0;
    const p = createProgress(io, "lines", () => t);
    // A slow run: 1 s a read.
    for (let i = 1; i <= 1000; i++) {
      t += 1000;
      p.storeRead(i, 1000);
    }
    expect(lines.length).toBe(10);
    expect(lines[0]).toBe("reading the platform: 100/1000 reads");
    expect(lines.at(-1)).toBe("reading the platform: 1000/1000 reads");
    expect(new Set(lines).size).toBe(lines.length);
  });

  it("print only the end of a run that takes a few seconds", () => {
    const { io, lines } = ciIo();
    const p = createProgress(io, "lines", () => 0);
    for (let i = 1; i <= 18; i++) p.storeRead(i, 18);
    expect(lines).toEqual(["reading the platform: 18/18 reads"]);
  });

  it("never print the same line twice, even when the same count is reported again", () => {
    const { io, lines } = ciIo();
    let t = 0;
    const p = createProgress(io, "lines", () => t);
    for (let i = 1; i <= 18; i++) {
      t += 2000;
      p.storeRead(i, 18);
      p.storeRead(i, 18);
    }
    p.storeRead(18, 18);
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.filter((l) => l === "reading the platform: 18/18 reads")).toHaveLength(1);
  });

  it("print at most one line every 5 s, however fast the count moves", () => {
    const { io, lines } = ciIo();
    let t = 0;
    const p = createProgress(io, "lines", () => t);
    p.storeRead(500, 1000);
    expect(lines).toEqual([]);
    t = 5000;
    p.storeRead(600, 1000);
    expect(lines).toEqual(["reading the platform: 600/1000 reads"]);
    t = 6000;
    p.storeRead(900, 1000);
    expect(lines).toHaveLength(1);
  });

  it("count the calls of an apply in at most ten lines, and give each failed call its own line", () => {
    const { io, lines } = ciIo();
    let t = 0;
    const p = createProgress(io, "lines", () => t);
    p.apply({ type: "start", total: 48 });
    for (let i = 1; i <= 48; i++) {
      t += 3000;
      p.apply(op(i, 48, i === 7 ? "failed" : "ok"));
    }
    const counts = lines.filter((l) => l.startsWith("applying calls:"));
    expect(counts.length).toBeGreaterThan(1);
    expect(counts.length).toBeLessThanOrEqual(10);
    expect(counts.at(-1)).toBe("applying calls: 48/48 made");
    expect(lines).toContain("[7/48] POST /x/7 failed: no");
    expect(lines.filter((l) => l.startsWith("[")).length).toBe(1);
  });

  it("give a call that says something (a lost answer settled) its own line", () => {
    const { io, lines } = ciIo();
    const p = createProgress(io, "lines", () => 0);
    const settled = {
      type: "operation",
      done: 1,
      total: 2,
      result: { method: "POST", path: "/webhook", status: "ok", message: "answer lost; settled" },
    } as unknown as ApplyEvent;
    p.apply(settled);
    expect(lines).toEqual(["[1/2] POST /webhook ok: answer lost; settled"]);
  });

  it("print nothing with --quiet or --json", () => {
    const { io, lines } = ciIo();
    const p = createProgress(io, "none");
    p.storeRead(1, 1);
    p.apply(op(1, 1));
    expect(lines).toEqual([]);
  });
});
