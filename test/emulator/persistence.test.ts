import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import { ConfigError, StateFileError, UsageError } from "../../src/errors.js";
import type { WireItem } from "../../src/platform/wire.js";
import { AV2, MENU, SEED, call, group, item, login } from "./helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "carte-emu-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("emulator: state file", () => {
  it("survives a restart, including writes still pending at close", async () => {
    const stateFile = join(dir, "nested", "state.json");
    const first = await startEmulator({ seed: SEED, stateFile, applyDelayMs: 10_000 });
    let token = await login(first);
    await call(first, "POST", `${MENU()}/items`, {
      token,
      body: [item("CHEESE"), group("EXTRAS", ["CHEESE"])],
    });
    await call(first, "PUT", `${AV2}/stores/items`, {
      token,
      body: [{ store_integration_id: "bog-centro", items: { turn_off: ["CHEESE"] } }],
    });
    await first.close(); // pending writes applied and persisted first
    const saved = await readFile(stateFile, "utf8");
    expect(JSON.parse(saved)).toHaveProperty("formatVersion", 1);

    const second = await startEmulator({ stateFile, applyDelayMs: 10 });
    token = await login(second); // clients come from the file
    const items = (await call(second, "GET", `${MENU()}/items`, { token })).body as WireItem[];
    expect(items.map((i) => [i.sku, i.suspension_info!.is_available])).toEqual([
      ["CHEESE", false],
      ["EXTRAS", true],
    ]);
    // New ids continue after the loaded ones.
    await call(second, "POST", `${MENU()}/items`, { token, body: [item("BACON")] });
    await second.idle();
    const after = (await call(second, "GET", `${MENU()}/items`, { token })).body as WireItem[];
    const bacon = after.find((i) => i.sku === "BACON")!;
    expect(bacon.id).toBeGreaterThan(Math.max(...items.map((i) => i.id!)));
    // provision is idempotent and leaves store data alone.
    second.provision(SEED);
    expect((await call(second, "GET", `${MENU()}/items`, { token })).body).toHaveLength(3);
    await second.close();
  });

  it("refuses a state file that is not JSON as a state file's error, naming the file and what to do", async () => {
    const stateFile = join(dir, "state.json");
    await writeFile(stateFile, "{ not json");
    const err = await startEmulator({ stateFile, applyDelayMs: 10 }).catch((e: unknown) => e);
    // Not a misused command: the CLI shows no usage hint for it.
    expect(err).toBeInstanceOf(StateFileError);
    expect(err).not.toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      `emulator state file ${stateFile} is not valid JSON; remove it to start afresh`,
    );
  });

  it("reset empties catalogs", async () => {
    const emu = await startEmulator({ seed: SEED, applyDelayMs: 0 });
    const token = await login(emu);
    await call(emu, "POST", `${MENU()}/items`, { token, body: [item("A")] });
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).body).toHaveLength(1);
    expect((await call(emu, "POST", "/__emulator/reset")).status).toBe(200);
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).body).toEqual([]);
    await emu.close();
  });
});

describe("loadSeedFile", () => {
  it("reads YAML and JSON", async () => {
    const yml = join(dir, "seed.yaml");
    await writeFile(
      yml,
      "clients:\n  - client_id: acme\n    client_secret: x\n    stores:\n      - { id: 900123, integration_id: bog-centro, name: Centro }\n",
    );
    expect(await loadSeedFile(yml)).toEqual({
      clients: [
        {
          client_id: "acme",
          client_secret: "x",
          stores: [{ id: 900123, integration_id: "bog-centro", name: "Centro" }],
        },
      ],
    });
    const json = join(dir, "seed.json");
    await writeFile(json, JSON.stringify(SEED));
    expect(await loadSeedFile(json)).toEqual(SEED);
  });

  it("names the file and the problem on a bad shape", async () => {
    const bad = join(dir, "bad.yaml");
    await writeFile(bad, "clients:\n  - client_id: acme\n    stores:\n      - { id: abc, name: Centro }\n");
    const err = await loadSeedFile(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    // Named as the user gave it: relative to the working directory.
    expect(msg).toContain(`${relative(process.cwd(), bad)}:2:5: /clients/0/client_secret`);
    expect(msg).toContain("/clients/0/client_secret");
    expect(msg).toContain("/clients/0/stores/0/id");
    expect(msg).toContain("/clients/0/stores/0/integration_id");
  });
});
