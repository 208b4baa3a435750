/**
 * Request validation of the emulator with the platform's wire shapes, `schemas/platform/*.schema.json`
 * (docs/platform-api.md, "The wire shapes": the client and the emulator share the schemas). A route names the
 * definition its body must match (`Route.requestSchema`); server.ts checks the body before the handler
 * and answers 400 with one message naming the first problem. The handlers keep the checks that encode
 * platform rules the schemas cannot express (limits, references, time ranges, ownership).
 *
 * Messages use the emulator's one style, the handlers' as well: a path into the body in JavaScript
 * notation (`items[3].title_info.title`; `body` for the body itself) followed by what is wrong. A missing
 * field says what it must be when that is not obvious: `unavailable is required (an array of strings)`,
 * `schedule_details must be a non-empty array`, `stores[0].is_enabled must be a boolean`.
 *
 * The schemas are those of src/platform/schemas.ts as written (the client reads answers with the same
 * files, open to fields they do not name): read and compiled once per process, on the first use (the
 * emulator compiles the validators of every route when its server is created), never per request. A
 * strict emulator (the default) checks bodies against the published description instead (contract.ts,
 * whose objects are closed), and words its problems with {@link validationMessage} too.
 */

import type { AnySchemaObject, ErrorObject } from "ajv";

import type { PlatformSchemaName } from "../generated/platform.js";
import { expectedOf, platformSchemas, resolveSchema, typeList, typePhrase } from "../platform/schemas.js";

export { platformSchemas } from "../platform/schemas.js";

type Schema = AnySchemaObject;

// ---- messages --------------------------------------------------------------------------------------

/** How messages name a request body. */
export interface BodyNames {
  /** What a body that is an array holds: `body must be an array of <noun>`. */
  noun?: string | undefined;
  /** Prefix of paths into the body: `items` → `items[3].sku`; default none (`[3].sku`, `stores[0]`). */
  root?: string | undefined;
}

function segments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** A JSON pointer into the body in JavaScript notation under `root`; `body` for the body itself. */
export function bodyPath(pointer: string, names: BodyNames = {}): string {
  let out = names.root ?? "";
  const segs = segments(pointer);
  if (segs.length === 0) return out === "" ? "body" : out;
  for (const s of segs) {
    if (/^\d+$/.test(s)) out += `[${s}]`;
    else out = out === "" ? s : `${out}.${s}`;
  }
  return out;
}

const PLURAL: Record<string, string> = {
  string: "strings",
  integer: "integers",
  number: "numbers",
  boolean: "booleans",
  object: "objects",
  array: "arrays",
};

/** The message of a missing required property: says what it must be when that is not obvious. */
function missing(path: string, schema: unknown): string {
  const s = resolveSchema(schema);
  const types = typeList(s?.type);
  if (s && types.length === 1 && types[0] === "array") {
    if (typeof s.minItems === "number" && s.minItems >= 1) return `${path} must be a non-empty array`;
    const items = resolveSchema(s.items);
    const of = typeList(items?.type)
      .map((t) => PLURAL[t] ?? t)
      .join(" or ");
    return `${path} is required (an array${of === "" ? "" : ` of ${of}`})`;
  }
  if (types.length === 1 && types[0] === "boolean") return `${path} must be a boolean`;
  if (s && types.length === 1 && types[0] === "integer" && typeof s.minimum === "number" && s.minimum >= 1) {
    return `${path} is required (a positive integer)`;
  }
  return `${path} is required`;
}

function child(pointer: string, name: string): string {
  return `${pointer}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** One ajv error as a message (the error's own keyword, not an `anyOf` summary). */
function describe(e: ErrorObject, names: BodyNames): string {
  const subject = bodyPath(e.instancePath, names);
  const parent = (e.parentSchema ?? {}) as Schema;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required": {
      const prop = String(p.missingProperty);
      const props = (parent.properties ?? {}) as Record<string, unknown>;
      return missing(bodyPath(child(e.instancePath, prop), names), props[prop]);
    }
    case "type":
      if (e.instancePath === "" && typeList(p.type).includes("array") && names.noun) {
        return `body must be an array of ${names.noun}`;
      }
      return `${subject} must be ${typePhrase(p.type)}`;
    case "enum":
      return `${subject} must be one of ${(p.allowedValues as unknown[]).map(String).join(",")}`;
    case "const":
      return `${subject} must be ${JSON.stringify(p.allowedValue)}`;
    case "format":
      if (p.format === "time-hh-mm-ss") return `${subject} must be a time HH:mm:ss`;
      if (p.format === "time-hh-mm") return `${subject} must be HH:MM`;
      if (p.format === "date-time") return `${subject} must be a date-time (ISO 8601)`;
      return `${subject} must be a ${String(p.format)}`;
    case "minimum":
    case "maximum": {
      const integer = typeList(parent.type).includes("integer");
      const what = integer ? "an integer" : "a number";
      if (typeof parent.minimum === "number" && typeof parent.maximum === "number") {
        return `${subject} must be ${what} from ${parent.minimum} to ${parent.maximum}`;
      }
      if (e.keyword === "minimum" && parent.minimum === 1 && integer) {
        return `${subject} must be a positive integer`;
      }
      if (e.keyword === "minimum" && parent.minimum === 0) return `${subject} must not be negative`;
      return `${subject} must be ${String(p.comparison)} ${String(p.limit)}`;
    }
    case "minItems":
      return p.limit === 1
        ? `${subject} must be a non-empty array`
        : `${subject} must have at least ${String(p.limit)} elements`;
    case "minLength":
      return p.limit === 1
        ? `${subject} must not be empty`
        : `${subject} must be at least ${String(p.limit)} characters long`;
    case "pattern":
      return `${subject} must match ${String(p.pattern)}`;
    case "additionalProperties":
      return `${bodyPath(child(e.instancePath, String(p.additionalProperty)), names)} is not allowed`;
    default:
      return `${subject} ${e.message ?? "is invalid"}`;
  }
}

/**
 * The message of a failed validation (`allErrors: false`: the last error is the failing keyword, the
 * ones before it the failed branches of an `anyOf`).
 * - `anyOf` of `required` alternatives: `turn_on or turn_off is required`;
 * - another `anyOf`: the deepest error of its branches when one went deeper than the `anyOf` itself
 *   (`[0].endsTime must be a time HH:mm:ss`), else what the alternatives expect
 *   (`body[0] must be a string or an integer`).
 */
export function validationMessage(errors: readonly ErrorObject[], names: BodyNames = {}): string {
  const last = errors.at(-1);
  if (!last) return "body is invalid";
  if (last.keyword !== "anyOf") return describe(last, names);
  const branches = Array.isArray(last.schema) ? (last.schema as unknown[]) : [];
  const requiredOnly = branches.every((b) => {
    const s = b as Schema;
    return Array.isArray(s.required) && Object.keys(s).length === 1;
  });
  if (requiredOnly && branches.length > 0) {
    const list = branches.map((b) =>
      bodyPath(child(last.instancePath, String((b as Schema).required[0])), names),
    );
    return `${list.join(" or ")} is required`;
  }
  const depth = (e: ErrorObject): number => segments(e.instancePath).length;
  let deepest: ErrorObject | undefined;
  for (const e of errors) {
    if (e === last || e.keyword === "anyOf") continue;
    if (!deepest || depth(e) > depth(deepest)) deepest = e;
  }
  if (deepest && depth(deepest) > depth(last)) return describe(deepest, names);
  return `${bodyPath(last.instancePath, names)} must be ${branches.map(expectedOf).join(" or ")}`;
}

/**
 * Checks a value against a definition of schemas/platform/. Returns undefined when it matches, else the
 * message of the first problem ({@link validationMessage}).
 */
export function checkBody(
  name: PlatformSchemaName,
  value: unknown,
  names: BodyNames = {},
): string | undefined {
  const validate = platformSchemas().validator(name);
  if (validate(value)) return undefined;
  return validationMessage(validate.errors ?? [], names);
}
