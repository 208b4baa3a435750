/**
 * The strict emulator's checks: every request body and every answer of a platform route held to the
 * published description of the platform API, `schemas/openapi.json` (the JSON copy of
 * docs/openapi.yaml that the npm package ships, written by scripts/gen-types.mjs from the route table
 * and schemas/platform/). Its objects accept only the fields they name, so that neither side can send a
 * field or a null the spec does not allow.
 *
 * - A request that breaks it is the client's error: the server answers what the platform would, 400 in
 *   the group's error shape, naming the field (request-validation.ts `validationMessage`).
 * - An answer that breaks it is a bug of the emulator: the server answers 500
 *   `{"message": "emulator answer breaks docs/openapi.yaml: <route> <status>: <pointer>: expected …"}`
 *   instead, so that the test whose traffic found it fails.
 *
 * The description is read once per process, on first use; each validator (one per request schema, one
 * per answer schema of a route and status) is compiled by ajv when first needed and then kept, never per
 * call. The description is not checked against the OpenAPI meta-schema here (`npm run lint:openapi` and
 * test/platform/openapi.test.ts do that), which saves a tenth of a second at every start.
 */

import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { AnySchemaObject, ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

import { ANNOTATIONS, TIME_FORMATS, describeErrors } from "../platform/schemas.js";
import { routeMethod, routeSpec, routeTemplate, type RouteName } from "../platform/routes.js";
import { InternalError } from "../errors.js";
import { validationMessage, type BodyNames } from "./request-validation.js";

// ajv-formats is CommonJS with a default export; under NodeNext its namespace may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Where the emulator reads the description: inside the package, beside schemas/platform/ (a template
 * literal, which scripts/build-action.mjs rewrites for the Action's bundle, one folder below the root).
 */
const DESCRIPTION_URL = new URL(`../../schemas/openapi.json`, import.meta.url);

/** The `$id` under which the description's components are known to ajv. */
const BASE = "https://carte.dev/schemas/openapi.json";

/** What the description says of one media type. */
interface Content {
  "application/json"?: { schema?: AnySchemaObject };
}
interface ResponseObject {
  $ref?: string;
  content?: Content;
}
interface Operation {
  requestBody?: { content?: Content };
  responses: Record<string, ResponseObject>;
}
interface Description {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, ResponseObject>; schemas: Record<string, AnySchemaObject> };
}

/** A copy of a schema of the description whose `#/…` references name the description absolutely. */
function absolute(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(absolute);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" && v.startsWith("#") ? `${BASE}${v}` : absolute(v),
    ]),
  );
}

/** The published description, compiled on demand. One per process: {@link contract}. */
export class Contract {
  /** The description as served at `GET /__emulator/openapi.json`. */
  readonly text: string;
  private readonly doc: Description;
  private readonly ajv: Ajv2020;
  private readonly requests = new Map<RouteName, ValidateFunction | null>();
  private readonly answers = new Map<string, ValidateFunction | null>();
  /** Validators of schemas that are not one component (`anyOf` of error bodies), by their text. */
  private readonly wrappers = new Map<string, ValidateFunction>();

  constructor(text: string) {
    this.text = text;
    this.doc = JSON.parse(text) as Description;
    // strictRequired off: `anyOf: [{required: [a]}, {required: [b]}]` names properties defined beside it.
    this.ajv = new Ajv2020({
      strict: true,
      strictRequired: false,
      allowUnionTypes: true,
      validateSchema: false,
      verbose: true,
      // ajv's pass that trims the generated code costs three quarters of the compile time of these
      // schemas, and a validator compiled without it validates as fast within a few percent.
      code: { optimize: false },
    });
    addFormats(this.ajv);
    for (const [name, re] of Object.entries(TIME_FORMATS)) this.ajv.addFormat(name, re);
    // `components` is the one part of the description that holds schemas; the rest is not JSON Schema.
    this.ajv.addVocabulary([...ANNOTATIONS, "components"]);
    this.ajv.addSchema({ $id: BASE, components: { schemas: this.doc.components.schemas } });
  }

  private operation(route: RouteName): Operation {
    const op = this.doc.paths[routeTemplate(route)]?.[routeMethod(route).toLowerCase()];
    if (!op) throw new InternalError(`schemas/openapi.json has no operation ${route}: run npm run gen`);
    return op;
  }

  /** The validator of a schema of the description: a component's own when it names one (shared). */
  private compile(schema: AnySchemaObject | undefined): ValidateFunction | null {
    if (!schema) return null;
    const ref = schema.$ref;
    if (typeof ref === "string" && ref.startsWith("#") && Object.keys(schema).length === 1) {
      const validate = this.ajv.getSchema(`${BASE}${ref}`);
      if (!validate) throw new InternalError(`schemas/openapi.json has no schema ${ref}`);
      return validate;
    }
    const text = JSON.stringify(schema);
    let validate = this.wrappers.get(text);
    if (!validate)
      this.wrappers.set(text, (validate = this.ajv.compile(absolute(schema) as AnySchemaObject)));
    return validate;
  }

  /** The (cached) validator of the route's request body; null for a route that takes none. */
  requestValidator(route: RouteName): ValidateFunction | null {
    let validate = this.requests.get(route);
    if (validate === undefined) {
      validate = this.compile(this.operation(route).requestBody?.content?.["application/json"]?.schema);
      this.requests.set(route, validate);
    }
    return validate;
  }

  /**
   * The problem of a request body, as the 400 answer names it (`items[3].price_info.price must be a
   * number`), or undefined when the body matches the route's request schema (or the route takes none).
   */
  requestProblem(route: RouteName, body: unknown, names?: BodyNames): string | undefined {
    const validate = this.requestValidator(route);
    if (!validate || validate(body)) return undefined;
    return validationMessage(validate.errors ?? [], names);
  }

  /**
   * The (cached) validator of the answer the route's operation lists under `listed` (a status, or
   * `default`): null for an answer without a body, undefined when the operation lists none.
   */
  private answerValidator(route: RouteName, listed: string): ValidateFunction | null | undefined {
    const key = `${route} ${listed}`;
    let validate = this.answers.get(key);
    if (validate === undefined) {
      let response = this.operation(route).responses[listed];
      if (response?.$ref) response = this.doc.components.responses[response.$ref.split("/").pop()!];
      if (!response) return undefined;
      validate = this.compile(response.content?.["application/json"]?.schema);
      this.answers.set(key, validate);
    }
    return validate;
  }

  /**
   * Compiles what every server checks at once: each route's request and its error answers (small
   * shapes shared by all routes: `Message`, `MessageList`, `MenuError`), so that a route's first
   * answer is not slowed by their compiling (a client reading right after an accepted write must not
   * miss the write's processing delay because of it). The answers of reads are compiled at their
   * first use: they are the large shapes, and most servers answer few of them.
   */
  compileShared(route: RouteName): void {
    this.requestValidator(route);
    const responses = this.operation(route).responses;
    for (const listed of Object.keys(responses)) {
      const ref = responses[listed]!.$ref ?? "";
      const status = Number(listed);
      if (ref !== "" || listed === "default" || status === 204 || this.isMessage(route, listed)) {
        this.answerValidator(route, listed);
      }
    }
  }

  /** Whether the answer listed under `listed` is the usual `{message}` (an accepted write). */
  private isMessage(route: RouteName, listed: string): boolean {
    const schema = this.operation(route).responses[listed]?.content?.["application/json"]?.schema;
    return schema?.$ref === "#/components/schemas/Message";
  }

  /**
   * The problem of an answer of the route, `<route> <status>: <pointer>: expected …, got …` (values not
   * quoted for a route whose answers carry a secret), or undefined when it matches the description: the
   * schema of its status (else of `default`), or no body for a status without content (204).
   */
  answerProblem(route: RouteName, status: number, body: unknown): string | undefined {
    const key = `${route} ${status}`;
    const responses = this.operation(route).responses;
    const listed = Object.hasOwn(responses, String(status)) ? String(status) : "default";
    const validate = this.answerValidator(route, listed);
    if (validate === undefined) return `${key}: the description lists no answer with this status`;
    if (!validate) return body === undefined ? undefined : `${key}: a body where the description lists none`;
    if (validate(body)) return undefined;
    const quote = status >= 400 || routeSpec(route).secret !== true;
    return `${key}: ${describeErrors(validate.errors ?? [], quote).join("; ")}`;
  }
}

let loaded: Contract | undefined;

/** The description of the installed package, read once per process. */
export function contract(): Contract {
  return (loaded ??= new Contract(readFileSync(DESCRIPTION_URL, "utf8")));
}
