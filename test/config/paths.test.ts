/**
 * Whether a path the configuration names lies inside the project (src/config/paths.ts
 * `insideProjectSync`), whatever form it is written in: the check every match of a pattern passes.
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { insideProjectSync } from "../../src/config/paths.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("insideProjectSync", () => {
  it("places a path however it is written, tells a link that leads out, and gives the size of a regular file", () => {
    const outside = realpathSync(mkdtempSync(path.join(tmpdir(), "carte-outside-")));
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), "carte-paths-")));
    dirs.push(outside, root);
    mkdirSync(path.join(root, "stores"));
    writeFileSync(path.join(root, "stores/a.yaml"), "store: {}\n");
    writeFileSync(path.join(outside, "secret"), "x\n");
    symlinkSync(path.join(outside, "secret"), path.join(root, "stores/out.yaml"));
    const check = (p: string, sizes?: Map<string, number>) =>
      insideProjectSync(root, p, root, new Map(), sizes);
    const real = path.join(root, "stores/a.yaml");
    const sizes = new Map<string, number>();
    expect(check(path.join(root, "stores/a.yaml"), sizes)).toEqual({ inside: true, real });
    expect(sizes.get(real)).toBe(10);
    expect(check(`${root}/stores/./a.yaml`)).toEqual({ inside: true, real });
    expect(check(`${root}//stores/a.yaml`)).toEqual({ inside: true, real });
    expect(check("stores/a.yaml")).toEqual({ inside: true, real });
    expect(check(`${root}/stores/../../${path.basename(outside)}/secret`)).toEqual({
      inside: false,
      why: "path",
    });
    const linkSizes = new Map<string, number>();
    expect(check(path.join(root, "stores/out.yaml"), linkSizes)).toEqual({ inside: false, why: "link" });
    expect(linkSizes.size).toBe(0);
  });
});
