import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { CATALOG, storeYaml, writeProject } from "./helpers.js";
import { holidaysState } from "../../src/kinds/store-schedule.js";
import { hoursState } from "../../src/kinds/store-schedule.js";
import { openState } from "../../src/kinds/store-availability.js";
import { specialDaysState } from "../../src/kinds/store-schedule.js";
import { webhooksState } from "../../src/kinds/store-webhooks.js";
import { catalogOf } from "../helpers/builders.js";

const PROJECT = "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";

async function load(files: Record<string, string>) {
  const dir = await writeProject({ "carte.yaml": PROJECT, "catalogs/burgers.yaml": CATALOG, ...files });
  return { dir, project: await loadProject(join(dir, "carte.yaml")) };
}

const slot = (text: string) => ({ start: text.slice(0, 5), end: text.slice(6) });

describe("store settings", () => {
  it("leaves every setting unmanaged when no file writes it", async () => {
    const { project } = await load({ "stores/a.yaml": storeYaml(1, "a") });
    const a = project.desired.stores.a!;
    for (const key of ["hours", "holidays", "specialDays", "open", "webhooks", "schedulesVia", "available"])
      expect(a).not.toHaveProperty(key);
    expect(project.desired).not.toHaveProperty("client");
    expect(project.secretsFile).toBeUndefined();
  });

  it("inherits chain → group → store: hours replaced day by day, unnamed days closed", async () => {
    const { project } = await load({
      "carte.yaml":
        PROJECT +
        "groups: groups/*.yaml\n" +
        'defaults:\n  hours:\n    mon-fri: ["11:00-22:00"]\n  open: true\n  schedules_via: utils\n',
      "groups/north.yaml": 'name: north\ndefaults:\n  hours:\n    sat: ["12:00-23:00"]\n  open: false\n',
      "stores/a.yaml": storeYaml(
        1,
        "a",
        'group: north\nhours:\n  fri: ["11:00-15:00", "18:00-02:00"]\n  mon: []\n',
      ),
      "stores/b.yaml": storeYaml(2, "b", "schedules_via: menu\n"),
    });
    const { a, b } = project.desired.stores;
    expect(hoursState.get(a!)).toEqual({
      mon: [],
      tue: [slot("11:00-22:00")],
      wed: [slot("11:00-22:00")],
      thu: [slot("11:00-22:00")],
      fri: [slot("11:00-15:00"), slot("18:00-23:59")],
      sat: [slot("00:00-02:00"), slot("12:00-23:00")],
      sun: [],
    });
    expect(openState.get(a!)).toBe(false);
    expect(a!.schedulesVia).toBe("utils");
    expect(hoursState.get(b!)?.sat).toEqual([]);
    expect(openState.get(b!)).toBe(true);
    expect(b!.schedulesVia).toBe("menu");
  });

  it("merges holidays and special days by date, and webhooks by event and key", async () => {
    const { project } = await load({
      "carte.yaml":
        PROJECT +
        'defaults:\n  holidays:\n    "12-25": ["10:00-16:00"]\n    "01-01": []\n' +
        '  special_days:\n    - { name: Eve, date: "12-24", slots: ["11:00-18:00"] }\n' +
        "  webhooks:\n    NEW_ORDER: https://orders.example.com/new\n    PING: https://ping.example.com\n" +
        "client:\n  webhooks:\n    STORE_PROVISIONING_STATUS: https://x.example.com/p\nsecrets_file: .carte/secrets.json\n",
      "stores/a.yaml": storeYaml(
        1,
        "a",
        'holidays:\n  "01-01": ["12:00-14:00", "09:00-11:00"]\n' +
          'special_days:\n  - { name: Nochebuena, date: "12-24", slots: [] }\n  - { name: Fiesta, date: "06-01", slots: ["10:00-24:00"] }\n' +
          "webhooks:\n  PING: { enabled: false }\n  MENU_APPROVED: { url: 'http://127.0.0.1:9000/m' }\n",
      ),
    });
    const a = project.desired.stores.a!;
    expect(holidaysState.get(a)).toEqual({
      "01-01": [slot("09:00-11:00"), slot("12:00-14:00")],
      "12-25": [slot("10:00-16:00")],
    });
    expect(specialDaysState.get(a)).toEqual({
      "06-01": { name: "Fiesta", month: 6, day: 1, slots: [slot("10:00-23:59")] },
      "12-24": { name: "Nochebuena", month: 12, day: 24, slots: [] },
    });
    expect(webhooksState.get(a)).toEqual({
      MENU_APPROVED: { url: "http://127.0.0.1:9000/m", enabled: true },
      NEW_ORDER: { url: "https://orders.example.com/new", enabled: true },
      PING: { url: "https://ping.example.com", enabled: false },
    });
    expect(project.desired.client).toEqual({
      webhooks: { STORE_PROVISIONING_STATUS: { url: "https://x.example.com/p" } },
    });
    expect(project.secretsFile).toBe(join(project.root, ".carte", "secrets.json"));
  });

  it("applies included files first, in order, an included file's own includes before it", async () => {
    const { project } = await load({
      "shared/base.yaml": 'include: shared/base-hours.yaml\nhours:\n  sat: ["10:00-12:00"]\n',
      "shared/base-hours.yaml": 'hours:\n  daily: ["08:00-20:00"]\nopen: false\n',
      "shared/late.yaml": 'hours:\n  fri: ["08:00-23:00"]\n',
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "include: [shared/base.yaml, shared/late.yaml]\nhours:\n  sun: []\nopen: true\n",
      ),
    });
    const a = project.desired.stores.a!;
    expect(hoursState.get(a)?.mon).toEqual([slot("08:00-20:00")]);
    expect(hoursState.get(a)?.fri).toEqual([slot("08:00-23:00")]);
    expect(hoursState.get(a)?.sat).toEqual([slot("10:00-12:00")]);
    expect(hoursState.get(a)?.sun).toEqual([]);
    expect(openState.get(a)).toBe(true);
    expect(project.files.map((f) => f.split("/").slice(-2).join("/"))).toEqual([
      expect.stringMatching(/carte\.yaml$/),
      "catalogs/burgers.yaml",
      "stores/a.yaml",
      "shared/base.yaml",
      "shared/late.yaml",
      "shared/base-hours.yaml",
    ]);
  });

  it("applies store titles, descriptions, images and explicit availability", async () => {
    const { project } = await load({
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "overrides:\n  titles: { BURGER: Hamburguesa, EXTRAS: Adiciones, MAIN: Principal }\n" +
          "  descriptions: { CHEESE: Cheddar }\n  images: { BURGER: [a.jpg, b.jpg], FRIES: [] }\n" +
          "availability:\n  available: [FRIES, BACON, FRIES]\n",
      ),
    });
    const a = project.desired.stores.a!;
    expect(catalogOf(a).items.BURGER).toMatchObject({ title: "Hamburguesa", images: ["a.jpg", "b.jpg"] });
    expect(catalogOf(a).items.EXTRAS?.title).toBe("Adiciones");
    expect(catalogOf(a).items.CHEESE?.description).toBe("Cheddar");
    expect(catalogOf(a).items.FRIES?.images).toEqual([]);
    expect(catalogOf(a).categories.MAIN?.title).toBe("Principal");
    expect(catalogOf(a).available).toEqual(["BACON", "FRIES"]);
  });
});
