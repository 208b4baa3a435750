/**
 * The command a message tells the user to type next is the one that starts carte as it was started:
 * the cases a process cannot be started in by the e2e test (npx's own cache) and the edges.
 */

import { describe, expect, it } from "vitest";
import { carteCommand, shellWord } from "../../src/cli/invocation.js";

const packageName = "@carte-oss/carte";

describe("carteCommand", () => {
  it("says npx carte for the copy installed in the project of the current folder or a folder above", () => {
    for (const cwd of ["/repo", "/repo/menus/bogota"])
      expect(carteCommand({ entry: "/repo/node_modules/.bin/carte", env: {}, cwd, packageName })).toBe(
        "npx carte",
      );
    // Started by npx (npm_command exec) from the project: the same.
    expect(
      carteCommand({
        entry: "/repo/node_modules/.bin/carte",
        env: { npm_command: "exec" },
        cwd: "/repo",
        packageName,
      }),
    ).toBe("npx carte");
  });

  it("names the package for a run npx fetched into its cache, and says carte for a global installation", () => {
    const cached = "/home/u/.npm/_npx/0123abcd/node_modules/.bin/carte";
    expect(carteCommand({ entry: cached, env: { npm_command: "exec" }, cwd: "/repo", packageName })).toBe(
      "npx @carte-oss/carte",
    );
    expect(carteCommand({ entry: cached, env: {}, cwd: "/repo", packageName })).toBe("npx @carte-oss/carte");
    // npm's global folder on Windows (the script itself), and the link on a PATH elsewhere.
    const global = "/usr/local/lib/node_modules/@carte-oss/carte/bin/carte.js";
    expect(carteCommand({ entry: global, env: {}, cwd: "/repo", packageName })).toBe("carte");
    expect(carteCommand({ entry: "/usr/local/bin/carte", env: {}, cwd: "/repo", packageName })).toBe("carte");
  });

  it("says node and the script for a copy of the sources, and carte when run in-process", () => {
    expect(carteCommand({ entry: "bin/carte.js", env: {}, cwd: "/src/carte", packageName })).toBe(
      "node bin/carte.js",
    );
    expect(carteCommand({ entry: "/opt/my carte/bin/carte.js", env: {}, cwd: "/repo", packageName })).toBe(
      "node '/opt/my carte/bin/carte.js'",
    );
    expect(carteCommand({ entry: undefined, env: {}, cwd: "/repo", packageName })).toBe("carte");
  });
});

describe("shellWord", () => {
  it("leaves a plain word as it is and quotes any other so that a shell reads it back as one word", () => {
    expect(shellWord("menu/carte.yaml")).toBe("menu/carte.yaml");
    expect(shellWord("my menu/carte.yaml")).toBe("'my menu/carte.yaml'");
    expect(shellWord("it's; rm -rf ~")).toBe(`'it'\\''s; rm -rf ~'`);
  });
});
