/** A library-level session against an emulator on port 0, for tests that build the desired state in code. */

import path from "node:path";
import { loadProject, type LoadedProject } from "../../src/config/index.js";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../src/emulator/index.js";
import { PlatformClient } from "../../src/platform/client.js";
import type { Session } from "../../src/run/session.js";
import { CLIENT_ID, CLIENT_SECRET, repoRoot } from "./project.js";

/** The example chain loaded (each store with resources of its own), an emulator serving its stores, and a session to it. */
export async function exampleSession(
  options: Partial<EmulatorOptions> = {},
): Promise<{ project: LoadedProject; emu: RunningEmulator; session: Session; close: () => Promise<void> }> {
  // Tests change one store's desired state in code: each store keeps copies of its own.
  const project = await loadProject(path.join(repoRoot, "examples", "chain", "carte.yaml"), {
    shareResources: false,
  });
  const emu = await startEmulator({
    port: 0,
    applyDelayMs: 2,
    seed: {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          stores: Object.values(project.desired.stores).map((s) => ({
            id: s.store.storeId,
            integration_id: s.store.integrationId,
            name: s.store.name,
          })),
        },
      ],
    },
    ...options,
  });
  const client = new PlatformClient({
    // Each group's address: the emulator's one, or each its own with `splitHosts`.
    baseUrl: emu.urls,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    requestsPerSecond: Infinity,
  });
  const session: Session = { client, emulator: undefined, stateFile: undefined, close: () => client.close() };
  return {
    project,
    emu,
    session,
    close: async () => {
      await session.close();
      await emu.close();
    },
  };
}
