// The published description of the platform API, docs/openapi.yaml (OpenAPI 3.1), built from the two
// sources of truth: the route table (src/platform/routes.ts, read from dist/: `npm run gen` builds
// first) and the wire shapes (schemas/platform/*.schema.json). scripts/gen-types.mjs writes it twice:
// as YAML under docs/ for people and tools, and as JSON under schemas/, which the npm package ships,
// so that the emulator checks its traffic against it (src/emulator/contract.ts) and serves it at
// GET /__emulator/openapi.json.
//
// It is carte's reading of the platform's documentation (docs/platform-api.md), not the vendor's description:
// - every object accepts only the fields its schema names (`additionalProperties: false` is written
//   wherever a schema names properties and says nothing else), so that a field the spec does not
//   describe is a violation on either side;
// - every choice carte makes where the spec is silent is marked `x-carte-assumption` (on a schema, an
//   operation or a header), and docs/platform-api.md lists each, word for word
//   (test/platform/openapi.test.ts holds the two to each other);
// - every operation names its API group (`x-carte-api-group`: the address its calls go to, each
//   group may have its own), and every path the addresses of `carte emulator` that serve it.
//
// Nothing time- or machine-dependent is written.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Files of schemas/platform/, in the order of their definitions in `components.schemas`. */
export const PLATFORM_FILES = ["common", "auth", "menu", "availability", "utils", "finance", "webhooks"];

/** carte's reading of every object of the description (see the module comment). */
const CLOSED_OBJECTS =
  "An object holds only the fields the spec names for it: a field it does not describe is refused in a request and never answered (an Override, which carries the value field of its block, excepted).";

/** The tag of each section of docs/platform-api.md §2. */
const TAGS = {
  "§2.1": ["auth", "Token login (docs/platform-api.md §2.1)"],
  "§2.2": ["legacy-stock", "Legacy bulk availability (docs/platform-api.md §2.2)"],
  "§2.3": ["availability", "Availability v2: items and stores (docs/platform-api.md §2.3)"],
  "§2.4": ["menu", "Store menu API (docs/platform-api.md §2.4)"],
  "§2.5": ["utils", "Utils group: corridors, products, store hours (docs/platform-api.md §2.5)"],
  "§2.6": ["finance", "Finance reads (docs/platform-api.md §2.6)"],
  "§2.7": ["webhooks", "Webhooks (docs/platform-api.md §2.7)"],
};

/** Keywords whose value is one schema, an array of schemas, or a map of names to schemas. */
const ONE = ["items", "additionalItems", "not", "if", "then", "else", "contains", "propertyNames"];
const MANY = ["anyOf", "oneOf", "allOf"];
const MAP = ["properties", "patternProperties", "definitions", "$defs"];

/**
 * A schema of schemas/platform/ as the description writes it: references point into
 * `#/components/schemas/`, and an object that names its properties and says nothing else about
 * others accepts no other (`additionalProperties: false`).
 */
function described(node) {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref") out.$ref = `#/components/schemas/${value.split("/").pop()}`;
    else if (ONE.includes(key) || (key === "additionalProperties" && typeof value === "object")) {
      out[key] = described(value);
    } else if (MANY.includes(key)) out[key] = value.map(described);
    else if (MAP.includes(key)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, described(v)]));
    } else out[key] = value;
  }
  if (out.properties && out.additionalProperties === undefined && out.patternProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

/** Every definition of schemas/platform/, by name, as the description writes it. */
async function componentSchemas(root) {
  const out = {};
  for (const file of PLATFORM_FILES) {
    const schema = JSON.parse(await readFile(join(root, `schemas/platform/${file}.schema.json`), "utf8"));
    for (const [name, def] of Object.entries(schema.definitions ?? {})) out[name] = described(def);
  }
  return out;
}

/** `POST /a/{b}/c-d` → `postABCD`: unique, as the paths are. */
function operationId(method, template) {
  const words = template
    .split(/[/{}_:-]+/)
    .filter((w) => w !== "")
    .map((w) => w[0].toUpperCase() + w.slice(1));
  return `${method.toLowerCase()}${words.join("")}`;
}

const json = (schema) => ({ "application/json": { schema } });
const ref = (name) => ({ $ref: `#/components/schemas/${name}` });
const oneOrAny = (names) => (names.length === 1 ? ref(names[0]) : { anyOf: names.map(ref) });

const REASONS = {
  400: "The request does not match its schema, or breaks a platform rule.",
  401: "A token missing, unknown, expired or of the other surface (wrong credentials at login).",
  403: "Another client's id.",
  404: "An unknown store, id or configuration.",
  406: "An unknown event name.",
  409: "A special day on that date exists.",
  422: "More stores than the synchronous call takes.",
  default:
    "Any other failure: 405 (another method), 413 (body too large), 429 (rate limit, with Retry-After), 5xx.",
};

const DEPRECATION_HEADERS = {
  "x-platform-api-deprecation-date": {
    description: "Date from which the utils group may be removed (YYYY-MM-DD).",
    schema: { type: "string" },
  },
  "x-platform-api-deprecation-info": {
    description: "What replaces the utils group.",
    schema: { type: "string" },
  },
};

/**
 * A failure's answer, kept once in `components.responses` under a name of its bodies, status and
 * headers (`Message404`, `MessageOrMenuError400`, `MessageDefaultUtils`); returns the reference.
 */
function failure(shared, status, names, utils) {
  const key = `${names.join("Or")}${status === "default" ? "Default" : status}${utils ? "Utils" : ""}`;
  shared[key] ??= {
    description: REASONS[status],
    ...(utils ? { headers: DEPRECATION_HEADERS } : {}),
    content: json(oneOrAny(names)),
  };
  return { $ref: `#/components/responses/${key}` };
}

/** The operation of one route of the table; failures' answers go to `shared` (components.responses). */
function operation(routes, schemas, shared, name) {
  const spec = routes.routeSpec(name);
  const method = routes.routeMethod(name);
  const template = routes.routeTemplate(name);
  const headers = spec.surface === "utils" ? { headers: DEPRECATION_HEADERS } : {};
  const params = routes.routeParamNames(name).map((p) => ({
    name: p,
    in: "path",
    required: true,
    schema: p === "identityType" ? { type: "string", enum: ["PLATFORM", "SKU"] } : { type: "string" },
  }));
  if (spec.query) {
    // The query definitions list the parameters one property each (finance, docs/platform-api.md §2.6).
    params.push(
      ...Object.entries(schemas[spec.query].properties).map(([p, schema]) => ({
        name: p,
        in: "query",
        required: false,
        schema,
      })),
    );
  }
  if (name.startsWith("DELETE ") && template.endsWith("/clients/{clientId}/webhooks")) {
    params.push({ name: "event", in: "query", required: true, schema: { type: "string" } });
  }
  const responses = {};
  for (const status of routes.routeStatuses(name)) {
    responses[String(status)] = spec.response
      ? {
          description: status === 201 ? "Created." : "Success.",
          ...headers,
          content: json(ref(spec.response)),
        }
      : { description: "Done, no body.", ...headers };
  }
  const failures = new Map();
  if (spec.request || spec.query || params.length > 0) failures.set(400, ["Message"]);
  failures.set(401, ["Message"]);
  if (params.some((p) => p.in === "path")) failures.set(404, ["Message"]);
  for (const [status, names] of Object.entries(spec.errors ?? {})) failures.set(Number(status), names);
  const utils = spec.surface === "utils";
  for (const [status, names] of [...failures].sort(([a], [b]) => a - b)) {
    responses[String(status)] = failure(shared, status, names, utils);
  }
  responses.default = failure(shared, "default", ["Message"], utils);
  const op = {
    operationId: operationId(method, template),
    summary: `${name} (docs/platform-api.md ${spec.section})`,
    tags: [TAGS[spec.section][0]],
    "x-carte-api-group": spec.group,
    security: spec.surface === "none" ? [] : [{ [`${spec.surface}Token`]: [] }],
    parameters: params.length > 0 ? params : undefined,
    requestBody: spec.request ? { required: true, content: json(ref(spec.request)) } : undefined,
    responses,
  };
  const facts = {};
  if (spec.maxElements !== undefined) facts["x-carte-max-elements"] = spec.maxElements;
  if (spec.synchronous !== undefined) facts["x-carte-synchronous"] = spec.synchronous;
  const assumptions = routes.routeAssumptions(name);
  if (assumptions.length > 0) facts["x-carte-assumption"] = assumptions;
  return JSON.parse(JSON.stringify({ ...op, ...facts }));
}

/** The default port of `carte emulator`; with --split-hosts, the first API group's. */
const EMULATOR_PORT = 8787;

/** The address of `carte emulator` at its default port plus `offset`. */
const EMULATOR_URL = (offset) => `http://127.0.0.1:${EMULATOR_PORT + offset}`;

/**
 * The servers of a path: `carte emulator` at its default address, which serves every API group, and
 * `carte emulator --split-hosts`'s address of the path's group (one port per group, in the order of the
 * route table's API_GROUPS), where the platform, too, serves each group from its own host.
 */
function groupServers(routes, group) {
  return [
    { url: EMULATOR_URL(0), description: "carte emulator: every API group at one address" },
    {
      url: EMULATOR_URL(routes.API_GROUPS.indexOf(group)),
      description: `carte emulator --split-hosts: the ${group} group's address`,
    },
  ];
}

/**
 * The description as a plain object (see the module comment). `routes` is src/platform/routes.ts as
 * built into dist/; `version` the package's.
 */
export async function buildOpenApi(root, version) {
  const routes = await import(pathToFileURL(join(root, "dist", "platform", "routes.js")).href);
  const schemas = await componentSchemas(root);
  const paths = {};
  const responses = {};
  for (const name of routes.ROUTE_NAMES) {
    const template = routes.routeTemplate(name);
    paths[template] ??= { servers: groupServers(routes, routes.routeGroup(name)) };
    paths[template][routes.routeMethod(name).toLowerCase()] = operation(routes, schemas, responses, name);
  }
  // The query definitions are written out as the parameters of their routes, not as schemas.
  for (const name of routes.ROUTE_NAMES) {
    const query = routes.routeSpec(name).query;
    if (query) delete schemas[query];
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Delivery platform API, as carte reads it",
      version,
      description: [
        "carte's reading of the delivery platform's API (docs/platform-api.md of the carte repository), written",
        "from carte's route table (src/platform/routes.ts) and wire shapes (schemas/platform/) by",
        "scripts/gen-types.mjs. It is not the vendor's description: where the spec is silent or",
        "contradicts itself, carte chose, and each such choice is marked `x-carte-assumption` and listed",
        "in docs/platform-api.md. Every object accepts only the fields it names. `carte emulator` serves",
        "this description at GET /__emulator/openapi.json and, with --strict (the default), answers 400",
        "to a request and 500 to an answer of its own that breaks it.",
      ].join(" "),
      license: { name: "MIT", identifier: "MIT" },
      "x-carte-assumption": [CLOSED_OBJECTS],
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: EMULATOR_URL(0), description: "carte emulator (its default address)" }],
    tags: Object.values(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        integrationsToken: {
          type: "apiKey",
          in: "header",
          name: "x-authorization",
          description:
            "`Bearer <token>` of POST /restaurants/auth/v1/token/login/integrations (docs/platform-api.md §4.2: a header of its own, not Authorization).",
        },
        utilsToken: {
          type: "apiKey",
          in: "header",
          name: "x-authorization",
          description:
            "`Bearer <token>` of POST /restaurants/auth/v1/token/login/utils: the utils group (/api/rest-ops-utils) takes only this token.",
        },
      },
      responses,
      schemas,
    },
  };
}
