/**
 * The published description of the platform API, docs/openapi.yaml: the copy the package ships is the
 * same document, every route of the table is an operation with its token scheme, bodies and error
 * bodies, and every assumption it marks is listed in docs/platform-api.md, and nothing else there.
 */

import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";
import { parse } from "yaml";

import {
  API_GROUPS,
  ROUTE_NAMES,
  routeGroup,
  routeMethod,
  routeSpec,
  routeStatuses,
  routeTemplate,
} from "../../src/platform/routes.js";

const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");

interface Operation {
  security: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }>;
}
interface Description {
  openapi: string;
  info: { title: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in: string; name: string }>;
    responses: Record<string, { content: Record<string, { schema: unknown }> }>;
    schemas: Record<string, { additionalProperties?: unknown }>;
  };
}

const doc = parse(read("docs/openapi.yaml")) as Description;

/** Every `x-carte-assumption` text of the description, each once, in the order met. */
function markedAssumptions(node: unknown, out = new Set<string>()): string[] {
  if (Array.isArray(node)) for (const x of node) markedAssumptions(x, out);
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "x-carte-assumption") for (const text of [value].flat()) out.add(String(text));
      else markedAssumptions(value, out);
    }
  }
  return [...out];
}

/** The bullets between the markers of docs/platform-api.md 3.11, continuation lines joined. */
function listedAssumptions(): string[] {
  const text = read("docs/platform-api.md");
  const start = text.indexOf("<!-- openapi-assumptions:start -->");
  const end = text.indexOf("<!-- openapi-assumptions:end -->");
  expect(start, "the markers of the assumptions list").toBeGreaterThan(0);
  return text
    .slice(start, end)
    .split(/\n(?=- )/)
    .filter((b) => b.startsWith("- "))
    .map((b) => b.slice(2).replace(/\s+/g, " ").trim());
}

describe("docs/openapi.yaml", () => {
  it("is OpenAPI 3.1, labelled as carte's reading, and the package ships the same document", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toMatch(/as carte reads it/);
    expect(doc.info.description).toMatch(/not the vendor's description/);
    expect(JSON.parse(read("schemas/openapi.json"))).toEqual(doc);
  });

  it("describes every route with its token scheme, request body, answers and error bodies", () => {
    const schemes = doc.components.securitySchemes;
    for (const scheme of Object.values(schemes)) {
      expect(scheme).toMatchObject({ type: "apiKey", in: "header", name: "x-authorization" });
    }
    for (const name of ROUTE_NAMES) {
      const spec = routeSpec(name);
      const op = doc.paths[routeTemplate(name)]?.[routeMethod(name).toLowerCase()];
      expect(op, name).toBeDefined();
      expect(op!.security, name).toEqual(spec.surface === "none" ? [] : [{ [`${spec.surface}Token`]: [] }]);
      expect(op!.requestBody?.content["application/json"]?.schema.$ref, name).toBe(
        spec.request ? `#/components/schemas/${spec.request}` : undefined,
      );
      for (const status of routeStatuses(name)) {
        const answer = op!.responses[String(status)]?.content?.["application/json"]?.schema;
        expect(answer, `${name} ${status}`).toEqual(
          spec.response ? { $ref: `#/components/schemas/${spec.response}` } : undefined,
        );
      }
      // Failures: 401 for a bad token (or credentials), the rest `default`, each a declared body.
      for (const status of ["401", "default"]) {
        const ref = op!.responses[status]?.$ref ?? "";
        expect(doc.components.responses[ref.split("/").pop()!], `${name} ${status}`).toBeDefined();
      }
    }
    const toggle = doc.paths["/api/v2/restaurants-integrations-public-api/availability/stores/items"]!.put!;
    expect(toggle.responses["400"]).toEqual({ $ref: "#/components/responses/MessageList400" });
    const items = doc.paths["/restaurants/menu/v1/stores/{storeId}/items"]!.post!;
    expect(doc.components.responses[items.responses["400"]!.$ref!.split("/").pop()!]!.content).toEqual({
      "application/json": {
        schema: {
          anyOf: [{ $ref: "#/components/schemas/Message" }, { $ref: "#/components/schemas/MenuError" }],
        },
      },
    });
  });

  it("names the API group of every operation and the address each group has at the emulator", () => {
    for (const name of ROUTE_NAMES) {
      const group = routeGroup(name);
      const item = doc.paths[routeTemplate(name)] as unknown as Record<string, unknown> & {
        servers?: { url: string; description: string }[];
      };
      const op = item[routeMethod(name).toLowerCase()] as { "x-carte-api-group"?: string };
      expect([name, op["x-carte-api-group"]]).toEqual([name, group]);
      // `carte emulator` serves every group at its port; with --split-hosts each at its own, in the
      // order of the groups from that port on.
      expect([name, item.servers]).toEqual([
        name,
        [
          { url: "http://127.0.0.1:8787", description: expect.stringMatching(/every API group/) },
          {
            url: `http://127.0.0.1:${8787 + API_GROUPS.indexOf(group)}`,
            description: expect.stringContaining(`the ${group} group's address`),
          },
        ],
      ]);
    }
  });

  it("closes every object that names its fields, requests and answers alike", () => {
    expect(doc.components.schemas.ItemUpsert!.additionalProperties).toBe(false);
    expect(doc.components.schemas.StoreMenu!.additionalProperties).toBe(false);
    // An Override carries its block's value field under the block's own name.
    expect(doc.components.schemas.Override!.additionalProperties).toBe(true);
  });

  it("marks each assumption that docs/platform-api.md lists, and no other", () => {
    const marked = markedAssumptions(doc);
    expect(marked.length).toBeGreaterThan(10);
    expect([...listedAssumptions()].sort()).toEqual([...marked].sort());
  });
});
