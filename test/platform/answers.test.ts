/**
 * How the client reads a 2xx answer (`PlatformClient.decode`): the content type, the JSON, and the
 * route's response schema read open (src/platform/schemas.ts), with the messages a user gets. No
 * network: answers are given as received.
 */

import { afterAll, describe, expect, it } from "vitest";
import { MalformedAnswerError } from "../../src/errors.js";
import { PlatformClient, type RawAnswer } from "../../src/platform/client.js";
import { answerProblems } from "../../src/platform/schemas.js";
import type { RouteName } from "../../src/platform/routes.js";

const SECRET = "client-secret-never-shown-42";
const client = new PlatformClient({ baseUrl: "http://127.0.0.1:1", clientId: "c1", clientSecret: SECRET });
afterAll(() => client.close());

const HOURS = "GET /api/rest-ops-utils/store/schedule/{storeId}" as const;
const STORE_MENU = "GET /restaurants/menu/v1/stores/{storeId}/store-menu" as const;

function answer(route: RouteName, body: string | unknown, contentType?: string): RawAnswer {
  return {
    route,
    method: route.slice(0, route.indexOf(" ")),
    path: "/api/rest-ops-utils/store/schedule/900101",
    storeId: "900101",
    status: 200,
    contentType,
    text: typeof body === "string" ? body : JSON.stringify(body),
  };
}

/** The message of the error `decode` throws for an answer. */
function refusal(a: RawAnswer): string {
  try {
    client.decode(a);
  } catch (err) {
    expect(err).toBeInstanceOf(MalformedAnswerError);
    return (err as Error).message;
  }
  throw new Error("the answer was accepted");
}

const HOURS_OK = {
  storeScheduleDays: [
    { day: "mon", storeSchedules: [{ id: 1, startsTime: "11:00:00", endsTime: "15:00:00" }] },
  ],
};

describe("PlatformClient.decode", () => {
  it("takes JSON under any JSON content type, or none", () => {
    for (const type of [
      undefined,
      "application/json",
      "application/json; charset=utf-8",
      "application/problem+json",
    ]) {
      expect(client.decode(answer(HOURS, HOURS_OK, type))).toEqual(HOURS_OK);
    }
  });

  it("refuses another content type, an empty body and text that is not JSON, quoting a short escaped start", () => {
    expect(refusal(answer(HOURS, "Service down\r\n\u001b[31m", "text/plain"))).toBe(
      'the platform\'s answer to GET /api/rest-ops-utils/store/schedule/900101 for store 900101 is not JSON: its content type is "text/plain"; it starts "Service down\\r\\n\\u001b[31m" (19 characters)',
    );
    expect(refusal(answer(HOURS, "  "))).toMatch(/ is not JSON: the body is empty$/);
    expect(refusal(answer(HOURS, '{"storeScheduleDays": []}x'))).toMatch(
      / is not JSON: it is not valid JSON from character 26; it starts "\{\\"storeScheduleDays\\": \[\]\}x" \(26 characters\)$/,
    );
    const long = `{"storeScheduleDays": [${"1,".repeat(100)}`;
    expect(refusal(answer(HOURS, long))).toMatch(
      / is not JSON: it is cut short, ending inside its JSON value; it starts "\{\\"storeScheduleDays\\": \[1,1,1,[1,]*"… \(223 characters\)$/,
    );
  });

  it("says where the answer differs from the schema, the first three problems and how many more", () => {
    const message = refusal(
      answer(HOURS, {
        storeScheduleDays: [
          { day: "monday", storeSchedules: [{ id: "1", startsTime: "25:00:00", endsTime: "15:00:00" }] },
          { storeSchedules: null },
        ],
      }),
    );
    expect(message).toBe(
      "the platform's answer to GET /api/rest-ops-utils/store/schedule/900101 for store 900101 does not have the shape of a RegularHours (schemas/platform/utils.schema.json): " +
        '/storeScheduleDays/0/day: expected one of mon, tue, wed, thu, fri, sat, sun, got "monday"; ' +
        '/storeScheduleDays/0/storeSchedules/0/id: expected an integer, got "1"; ' +
        '/storeScheduleDays/0/storeSchedules/0/startsTime: expected a time HH:mm:ss, got "25:00:00"; ' +
        "and 2 more problems",
    );
    expect(refusal(answer(HOURS, null))).toMatch(/: top level: expected an object, got null$/);
  });

  it("says what an anyOf accepts, once per place", () => {
    const menu = {
      storeId: 900101,
      menus: [],
      categories: [],
      items: [
        {
          id: 1,
          sku: "A",
          storeId: 900101,
          last_updated: "2025-01-01 10:00",
          item_type: "MODIFIER_GROUP",
          title_info: { title: "A", overrides: [] },
          description_info: { description: "", overrides: [] },
          images_info: { images: [], overrides: [] },
          items_info: { items: [], overrides: [] },
          price_info: { price: 0, overrides: [] },
          quantity_info: { min_permitted: 0, max_permitted: 1, modifiers_type: 5, overrides: [] },
          suspension_info: { suspend_until: null, suspend_reason: null, is_available: true, overrides: [] },
          schedules_info: { schedules: [], overrides: [] },
        },
      ],
    };
    expect(refusal(answer(STORE_MENU, menu))).toMatch(
      /StoreMenu \(schemas\/platform\/menu\.schema\.json\): \/items\/0\/quantity_info\/modifiers_type: expected one of inclusive,exclusive or null, got 5$/,
    );
  });

  it("reads the schemas open: fields they do not name are no reason to refuse (the schemas as written refuse them)", () => {
    const extra = {
      storeScheduleDays: [
        {
          day: "mon",
          storeSchedules: [{ id: 1, startsTime: "11:00:00", endsTime: "15:00:00", note: "x" }],
          tz: "UTC",
        },
      ],
      version: 2,
    };
    expect(client.decode(answer(HOURS, extra))).toEqual(extra);
    expect(answerProblems("RegularHours", extra, { asWritten: true })).toEqual([
      "/version: not a field the schema names",
    ]);
  });

  it("quotes nothing of an answer that carries a secret, and redacts the client's secret elsewhere", () => {
    const reset = "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/reset-secret" as const;
    const hidden = "whsec-0123456789abcdef";
    const cut = refusal(answer(reset, `{"event":"NEW_ORDER","stores":[],"secret":"${hidden}`));
    expect(cut).toMatch(/ is not JSON: it is cut short, ending inside its JSON value$/);
    const wrong = refusal(answer(reset, { event: "NEW_ORDER", stores: [{ store_id: hidden }], secret: 42 }));
    expect(wrong).toContain("/secret: expected a string, got something else");
    for (const m of [cut, wrong]) expect(m).not.toContain(hidden);

    expect(refusal(answer(HOURS, `<p>${SECRET}</p>`, "text/html"))).toContain("<p>[REDACTED]</p>");
  });

  it("gives undefined for a route without a response schema, whatever the body", () => {
    const del = "DELETE /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}" as const;
    expect(client.decode(answer(del, "<html>", "text/html"))).toBeUndefined();
  });
});
