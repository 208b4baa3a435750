/**
 * The session of one platform of carte.yaml `platforms:` (a load scoped to it, `platformOf`): its
 * credentials from the environment variables it names, the missing ones named (never a value), and
 * on the embedded emulator its own state folder and its stores in its country. A project without
 * `platforms:` keeps `.carte/emulator-state.json` and CARTE_CLIENT_ID.
 */

import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProject, type LoadedProject } from "../../src/config/index.js";
import type { ProjectPlatform } from "../../src/config/platforms.js";
import { ConfigError } from "../../src/errors.js";
import { startEmulator } from "../../src/emulator/index.js";
import {
  credentialsFromEnv,
  describeTarget,
  embeddedCountry,
  openSession,
  runTarget,
} from "../../src/run/session.js";
import { repoRoot } from "../helpers/project.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The pizza example in a temporary folder, loaded, as a load scoped to platform `name` would give it. */
async function pizzaAs(platformOf: ProjectPlatform | undefined): Promise<LoadedProject> {
  dir = mkdtempSync(path.join(tmpdir(), "carte-session-"));
  cpSync(path.join(repoRoot, "examples", "pizza"), dir, { recursive: true });
  const project = await loadProject(path.join(dir, "carte.yaml"));
  return platformOf ? { ...project, platformOf } : project;
}

const br: ProjectPlatform = {
  name: "br",
  country: "BR",
  language: "pt",
  rehearsal: false,
  credentials: { clientId: "CARTE_BR_CLIENT_ID", clientSecret: "CARTE_BR_CLIENT_SECRET" },
};

describe("a platform's session", () => {
  it("reads the credentials from the variables the platform names", () => {
    const env = {
      CARTE_CLIENT_ID: "one",
      CARTE_CLIENT_SECRET: "one-secret",
      CARTE_BR_CLIENT_ID: "brazil",
      CARTE_BR_CLIENT_SECRET: "brazil-secret",
    };
    expect(credentialsFromEnv(env, br.credentials)).toEqual({
      clientId: "brazil",
      clientSecret: "brazil-secret",
    });
    expect(credentialsFromEnv(env)).toEqual({ clientId: "one", clientSecret: "one-secret" });
  });

  it("names the platform's variables when they are missing, never a value", async () => {
    const emu = await startEmulator({ port: 0 });
    try {
      const loaded = await pizzaAs(br);
      const project: LoadedProject = { ...loaded, platform: { hosts: emu.urls, requestsPerSecond: 10 } };
      const env = { CARTE_CLIENT_ID: "one", CARTE_CLIENT_SECRET: "one-secret-value" };
      const err = await openSession(project, { env }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      const problem = (err as ConfigError).problems[0]!;
      expect(problem.pointer).toBe("/platforms/br");
      expect(problem.message).toContain("platform br");
      expect(problem.message).toContain("CARTE_BR_CLIENT_ID and CARTE_BR_CLIENT_SECRET");
      expect(problem.message).not.toContain("one-secret-value");
      // With its variables set, the session knows its stores' country (its holidays' calendar).
      const session = await openSession(project, {
        env: { ...env, CARTE_BR_CLIENT_ID: "br", CARTE_BR_CLIENT_SECRET: "br-secret" },
      });
      try {
        expect(session.clientId).toBe("br");
        expect(session.countryOf?.("pz-centro")).toBe("BR");
      } finally {
        await session.close();
      }
    } finally {
      await emu.close();
    }
  });

  it("keeps the embedded emulator's state of each platform in its own folder, its stores in its country", async () => {
    const project = await pizzaAs(br);
    expect(embeddedCountry(project, "pz-centro")).toBe("BR");
    expect(describeTarget(runTarget(project), project.root)).toBe(
      "embedded emulator (state in .carte/platforms/br)",
    );
    const session = await openSession(project, { env: {} });
    try {
      expect(session.stateFile).toBe(
        path.join(project.root, ".carte", "platforms", "br", "emulator-state.json"),
      );
      expect(session.countryOf?.("pz-centro")).toBe("BR");
    } finally {
      await session.close();
    }
    expect(existsSync(path.join(project.root, ".carte", "platforms", "br", "emulator-state.json"))).toBe(
      true,
    );
    expect(existsSync(path.join(project.root, ".carte", "emulator-state.json"))).toBe(false);
    const rehearsal = { ...project, platformOf: { ...br, rehearsal: true } };
    expect(describeTarget(runTarget(rehearsal), project.root)).toBe(
      "embedded emulator (state in .carte/platforms/br-development)",
    );
  });

  it("a project without platforms: keeps .carte/emulator-state.json and Colombia", async () => {
    const project = await pizzaAs(undefined);
    expect(embeddedCountry(project, "pz-centro")).toBe("CO");
    expect(describeTarget(runTarget(project), project.root)).toBe("embedded emulator (state in .carte)");
  });
});
