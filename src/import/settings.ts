/**
 * Import of store settings: regular hours (`store_hours`), holiday hours (`holiday`), special days
 * (`special_day`), whether the store takes orders (`store_availability`) and the store's webhooks
 * (`webhook`). Each is a section of the store file, written from the store's own state, never shared
 * (docs/import.md): a setting the reader did not read is not written, so carte keeps leaving it alone.
 */

import { STORE_EVENTS, webhookUrlProblem } from "../config/settings.js";
import { address } from "../kinds/util.js";
import { WEEKDAYS, type Slot, type StoreState } from "../model.js";
import { daysText, slotText } from "./schedules.js";
import type { KindImportPart, Note } from "./types.js";
import { byCodePoint, sortedKeys } from "./util.js";

const slotsText = (slots: readonly Slot[]): string[] => slots.map(slotText);

/**
 * The week as the files write it: days with the same slots share a key (`mon-fri`, `sat,sun`); every
 * day is written, closed days as `[]`, so that nothing is inherited by accident.
 */
export function hoursText(hours: Record<string, Slot[]>): Record<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const day of WEEKDAYS) {
    const key = JSON.stringify(slotsText(hours[day] ?? []));
    groups.set(key, [...(groups.get(key) ?? []), day]);
  }
  const out: Record<string, string[]> = {};
  for (const [slots, days] of groups) out[daysText(days)] = JSON.parse(slots) as string[];
  return out;
}

/** The import part of regular hours. */
export const hoursPart: KindImportPart = {
  store: {
    name: "hours",
    sections: (state) => (state.hours ? { hours: hoursText(state.hours) } : undefined),
  },
};

/** The import part of holiday hours: the holidays that have slots, by date. */
export const holidaysPart: KindImportPart = {
  store: {
    name: "holidays",
    sections(state) {
      if (!state.holidays) return undefined;
      const out: Record<string, string[]> = {};
      for (const date of sortedKeys(state.holidays)) {
        const slots = state.holidays[date] ?? [];
        if (slots.length > 0) out[date] = slotsText(slots);
      }
      return Object.keys(out).length > 0 ? { holidays: out } : undefined;
    },
  },
};

const pad = (n: number) => String(n).padStart(2, "0");

/** The import part of special days, in date order. */
export const specialDaysPart: KindImportPart = {
  store: {
    name: "special_days",
    sections(state) {
      const days = Object.values(state.specialDays ?? {});
      if (days.length === 0) return undefined;
      const list = days
        .map((d) => ({ name: d.name, date: `${pad(d.month)}-${pad(d.day)}`, slots: slotsText(d.slots) }))
        .sort((a, b) => byCodePoint(a.date, b.date));
      return { special_days: list };
    },
  },
};

/** The import part of store availability (open or closed). */
export const openPart: KindImportPart = {
  store: {
    name: "open",
    sections: (state) => (state.open === undefined ? undefined : { open: state.open }),
  },
};

/** Keeps the webhooks the files can hold: store events, https addresses (http only for localhost). */
export function sanitizeWebhooks(state: StoreState, note: Note): void {
  if (!state.webhooks) return;
  for (const [event, hook] of Object.entries(state.webhooks)) {
    const why = !STORE_EVENTS.includes(event) ? `unknown event ${event}` : webhookUrlProblem(hook.url);
    if (why) {
      note(address(state.store.key, "webhook", event), why);
      delete state.webhooks[event];
    }
  }
}

/** The import part of the store's webhooks: `EVENT: url`, or `{url, enabled: false}` when switched off. */
export const webhooksPart: KindImportPart = {
  sanitize: sanitizeWebhooks,
  store: {
    name: "webhooks",
    sections(state) {
      const hooks = state.webhooks ?? {};
      if (Object.keys(hooks).length === 0) return undefined;
      return {
        webhooks: Object.fromEntries(
          sortedKeys(hooks).map((event) => {
            const h = hooks[event]!;
            return [event, h.enabled ? h.url : { url: h.url, enabled: false }];
          }),
        ),
      };
    },
  },
};
