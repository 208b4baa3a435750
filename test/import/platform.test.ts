/**
 * An imported project plans against the platform it was read from: the same address of every API
 * group, written as carte.yaml's `base_url` when the groups share one, else under `hosts:`.
 */

import { describe, expect, it } from "vitest";
import type { LoadedProject } from "../../src/config/index.js";
import { projectFor } from "../../src/import/index.js";
import { samePlatform } from "../../src/import/emulator-state-copy.js";
import { oneHost, type PlatformHosts } from "../../src/platform/routes.js";

const SPLIT: PlatformHosts = {
  auth: "https://api.example.com",
  menu: "https://api.example.com",
  finance: "https://api.example.com",
  availability: "https://services.example.com",
  webhooks: "https://services.example.com",
  utils: "https://services.example.com",
};

const loaded = (hosts: PlatformHosts | undefined, root = "/p") =>
  ({ root, platform: hosts && { hosts, requestsPerSecond: 50 } }) as unknown as LoadedProject;

describe("the platform of an imported project", () => {
  it("writes base_url when every group shares an address, and each group's address otherwise", () => {
    expect(projectFor({ hosts: oneHost("https://api.example.com") }).platform).toEqual({
      base_url: "https://api.example.com",
    });
    expect(projectFor({ hosts: SPLIT, requestsPerSecond: 5 }).platform).toEqual({
      hosts: SPLIT,
      requests_per_second: 5,
    });
  });

  it("is the same platform only when every group has the same address", () => {
    expect(samePlatform(loaded(SPLIT), loaded({ ...SPLIT }, "/q"))).toBe(true);
    expect(samePlatform(loaded(SPLIT), loaded({ ...SPLIT, utils: "https://api.example.com" }))).toBe(false);
    expect(samePlatform(loaded(SPLIT), loaded(undefined))).toBe(false);
    expect(samePlatform(loaded(undefined), loaded(undefined))).toBe(true);
  });
});
