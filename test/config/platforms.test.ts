import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEachPlatform, loadProject, readPlatformNames } from "../../src/config/index.js";
import { CATALOG, problemsOf, PROJECT, shown, storeYaml, writeProject } from "./helpers.js";

/** Two platforms of one currency (the scoping alone), each with a group; `bog` has a development host. */
const TWO = `version: 1
stores: stores/*.yaml
catalogs: catalogs/*.yaml
groups: groups/*.yaml
platforms:
  bog:
    country: CO
    currency: COP
    hosts:
      auth: https://auth.bog.example.com
      menu: https://auth.bog.example.com
      finance: https://auth.bog.example.com
      availability: https://svc.bog.example.com
      webhooks: https://svc.bog.example.com
      utils: https://svc.bog.example.com
    credentials: { client_id: BOG_ID }
    development:
      base_url: https://dev.example.com
      stores:
        bog-centro: { id: 990101, integration_id: test-bog-centro, name: Test Centro }
  med:
    country: CO
    currency: COP
    language: es
`;

function twoPlatforms(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "carte.yaml": TWO,
    "catalogs/burgers.yaml": CATALOG,
    "groups/bogota.yaml": "defaults:\n  platform: bog\n",
    "groups/medellin.yaml": "defaults:\n  platform: med\n",
    "stores/bog-centro.yaml": storeYaml(900101, "bog-centro", "group: bogota\n"),
    "stores/bog-norte.yaml": storeYaml(900102, "bog-norte", "group: bogota\n"),
    // The same store id and integration id on the other platform: each platform has its own stores.
    "stores/med-centro.yaml": storeYaml(900101, "bog-centro-2", "group: medellin\n"),
    "stores/med-sur.yaml": storeYaml(900103, "med-sur", "platform: med\n"),
    ...extra,
  };
}

describe("carte.yaml platforms:", () => {
  it("names its platforms, in the order written, reading carte.yaml alone", async () => {
    const dir = await writeProject(twoPlatforms({ "stores/broken.yaml": "store: [" }));
    expect(await readPlatformNames(join(dir, "carte.yaml"))).toEqual(["bog", "med"]);
    const single = await writeProject({ "carte.yaml": PROJECT });
    expect(await readPlatformNames(join(single, "carte.yaml"))).toEqual([]);
  });

  it("loads one platform: its stores, hosts, currency and credential names", async () => {
    const dir = await writeProject(twoPlatforms());
    const bog = await loadProject(join(dir, "carte.yaml"), { platform: { name: "bog" } });
    expect(Object.keys(bog.desired.stores)).toEqual(["bog-centro", "bog-norte"]);
    expect(bog.platform?.hosts.menu).toBe("https://auth.bog.example.com");
    expect(bog.platform?.hosts.utils).toBe("https://svc.bog.example.com");
    expect(bog.currency?.code).toBe("COP");
    expect(bog.platformOf).toEqual({
      name: "bog",
      country: "CO",
      rehearsal: false,
      credentials: { clientId: "BOG_ID", clientSecret: "CARTE_BOG_CLIENT_SECRET" },
    });
    expect(bog.files.some((f) => f.endsWith("med-sur.yaml"))).toBe(false);
    const med = await loadProject(join(dir, "carte.yaml"), { platform: { name: "med" } });
    // No hosts: the embedded emulator.
    expect(med.platform).toBeUndefined();
    expect(Object.keys(med.desired.stores)).toEqual(["bog-centro-2", "med-sur"]);
    expect(med.platformOf?.language).toBe("es");
    expect(med.platformOf?.credentials.clientId).toBe("CARTE_MED_CLIENT_ID");
  });

  it("rehearses on the development host: its hosts, credentials and the mapped test stores alone", async () => {
    const dir = await writeProject(twoPlatforms());
    const dev = await loadProject(join(dir, "carte.yaml"), { platform: { name: "bog", rehearsal: true } });
    expect(Object.keys(dev.desired.stores)).toEqual(["test-bog-centro"]);
    const store = dev.desired.stores["test-bog-centro"]!;
    expect(store.store).toMatchObject({
      storeId: "990101",
      integrationId: "test-bog-centro",
      name: "Test Centro",
    });
    expect(dev.platform?.hosts.auth).toBe("https://dev.example.com");
    expect(dev.platformOf?.rehearsal).toBe(true);
    expect(dev.platformOf?.credentials).toEqual({
      clientId: "CARTE_BOG_DEV_CLIENT_ID",
      clientSecret: "CARTE_BOG_DEV_CLIENT_SECRET",
    });
    const problems = await problemsOf(
      loadProject(join(dir, "carte.yaml"), { platform: { name: "med", rehearsal: true } }),
    );
    expect(problems.join("\n")).toMatch(/platform "med" has no development: host/);
  });

  it("loads each platform in turn, and the rehearsal of those with a development host", async () => {
    const dir = await writeProject(twoPlatforms());
    const each = await loadEachPlatform(join(dir, "carte.yaml"));
    expect(each.map((e) => [e.name, Object.keys(e.project.desired.stores).length])).toEqual([
      ["bog", 2],
      ["med", 2],
    ]);
    const rehearsals = await loadEachPlatform(join(dir, "carte.yaml"), { rehearsal: true });
    expect(rehearsals.map((e) => e.name)).toEqual(["bog"]);
    const single = await writeProject({
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(1, "a"),
    });
    const one = await loadEachPlatform(join(single, "carte.yaml"));
    expect(one.map((e) => e.name)).toEqual([undefined]);
  });

  it("refuses a load without a platform, naming the platforms", async () => {
    const dir = await writeProject(twoPlatforms());
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    expect(problems).toEqual([
      `${shown(dir, "carte.yaml")}:5:1: this project has the platforms "bog" and "med": load one at a time (--platform NAME), or each in turn (loadEachPlatform)`,
    ]);
    const unknown = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "bogg" } }));
    expect(unknown.join("\n")).toMatch(
      /platform "bogg" is not one of carte.yaml platforms: .*did you mean "bog"/,
    );
  });

  it("locates a store without a platform, an unknown platform and a platform other than its group's", async () => {
    const dir = await writeProject(
      twoPlatforms({
        "stores/lost.yaml": storeYaml(900201, "lost"),
        "stores/typo.yaml": storeYaml(900202, "typo", "platform: medd\n"),
        "stores/mixed.yaml": storeYaml(900203, "mixed", "group: bogota\nplatform: med\n"),
      }),
    );
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "bog" } }));
    expect(problems).toContain(
      `${shown(dir, "stores/lost.yaml")}:1:1: this store belongs to no platform: write platform: NAME in it, in its group's defaults or in carte.yaml's defaults (one of "bog", "med")`,
    );
    expect(problems).toContain(
      `${shown(dir, "stores/typo.yaml")}:6:11: platform "medd" is not one of carte.yaml platforms: ("bog", "med") (did you mean "med"?)`,
    );
    expect(problems).toContain(
      `${shown(dir, "stores/mixed.yaml")}:7:11: this store's platform "med" is not its group "bogota"'s ("bog"): a store joins a group of its own platform`,
    );
  });

  it("takes carte.yaml defaults: platform: for a store that names none", async () => {
    const dir = await writeProject(
      twoPlatforms({
        "carte.yaml": `${TWO}defaults:\n  platform: med\n`,
        "stores/lost.yaml": storeYaml(900201, "lost"),
      }),
    );
    const med = await loadProject(join(dir, "carte.yaml"), { platform: { name: "med" } });
    expect(Object.keys(med.desired.stores)).toContain("lost");
  });

  it("refuses platform: and currency: beside platforms:, bad countries, and credentials that are not names", async () => {
    const secret = "s3cr3t-Value_pasted";
    const dir = await writeProject(
      twoPlatforms({
        "carte.yaml": TWO.replace("version: 1\n", "version: 1\ncurrency: COP\n")
          .replace(
            "    country: CO\n    currency: COP\n    language: es",
            "    country: CX\n    currency: COP",
          )
          .replace(
            "credentials: { client_id: BOG_ID }",
            `credentials: { client_id: BOG_ID, client_secret: "${secret}" }`,
          ),
      }),
    );
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "bog" } }));
    const text = problems.join("\n");
    expect(text).toContain(
      `${shown(dir, "carte.yaml")}:2:1: currency: cannot be written together with platforms:, which gives each platform its currency: move it under each platform of platforms:`,
    );
    expect(text).toMatch(
      /carte.yaml:\d+:14: country "CX" is not one the platform serves \(AR, BR, CL, CO, EC, MX, PE, UY\)/,
    );
    expect(text).toMatch(/credentials.client_secret must be the NAME of an environment variable/);
    expect(text).not.toContain(secret);
  });

  it("checks each platform's addresses as platform:'s", async () => {
    const dir = await writeProject(
      twoPlatforms({
        "carte.yaml": TWO.replace("      utils: https://svc.bog.example.com\n", "").replace(
          "base_url: https://dev.example.com",
          "base_url: http://dev.example.com",
        ),
      }),
    );
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "bog" } }));
    expect(problems.join("\n")).toContain(
      "the API group utils has no address: give platforms.bog.base_url (the address of every group hosts: does not name), or its address under platforms.bog.hosts",
    );
    expect(problems.join("\n")).toContain(
      'address of platforms.bog.development "http://dev.example.com" must start with https://',
    );
  });

  it("keeps a project without platforms: as it was, and refuses platform: in its store files", async () => {
    const dir = await writeProject({
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(1, "a", "platform: co\n"),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    expect(problems).toEqual([
      `${shown(dir, "stores/a.yaml")}:6:11: platform: names a platform of carte.yaml platforms:, and carte.yaml has none: remove it, or name the platforms under platforms:`,
    ]);
  });
});
