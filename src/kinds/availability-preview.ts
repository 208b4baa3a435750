/**
 * How `carte preview` shows an item's availability (src/kinds/show.ts `KindPreview`): an item or option
 * switched off after the plan is greyed, with the date and time it comes back on, on the store's clock;
 * one the plan switches back on says so. Drawn on the item by the items kind's part
 * (src/kinds/items-preview.ts); here, apart from the availability kind's module, which the items kind
 * is below.
 */

import { own } from "../model.js";
import { wallClockText } from "../time/zone.js";
import { escapeHtmlText as t } from "../show/html.js";
import { availabilityOf } from "./catalog.js";
import type { KindChange } from "./change.js";
import type { PreviewPage } from "./show.js";

/** Whether an item is switched off after the plan, until when as the plan shows it, and the change. */
export interface OffState {
  off: boolean;
  until?: string;
  change?: KindChange;
}

/** Whether the item is switched off after the plan, and until when as the plan shows it. */
export function offState(page: PreviewPage, sku: string): OffState {
  const c = page.change("availability", sku);
  const a = page.state ? availabilityOf(page.state) : undefined;
  const s = a?.suspensions ? own(a.suspensions, sku) : undefined;
  if (c?.after) {
    const after = c.after as { available: boolean; until?: string };
    if (after.available) return { off: false, change: c };
    const until = shownUntil(after.until, s?.shown);
    return { off: true, change: c, ...(until !== undefined ? { until } : {}) };
  }
  if (!a || !a.unavailable.includes(sku)) return { off: false };
  const until = shownUntil(s?.until, s?.shown);
  return { off: true, ...(until !== undefined ? { until } : {}) };
}

/**
 * When an item comes back on, as a page read on any later day says it: the store's date and time of
 * the instant (`Sat 6 Dec 2026, 18:00`, src/time/zone.ts `wallClockText`: carte writes the instant with
 * the store's offset), else the files' words for it, else the instant as written.
 */
function shownUntil(until: string | undefined, shown: string | undefined): string | undefined {
  return (until !== undefined ? wallClockText(until) : undefined) ?? shown ?? until;
}

/** The badge of an item's availability: `Off until …`, `Off`, `Switched back on`, or nothing. */
export function offBadge(off: OffState): string {
  if (!off.off) {
    return off.change
      ? ' <span class="badge" data-field="availability" data-after="on">Switched back on</span>'
      : "";
  }
  return ` <span class="badge">${off.until !== undefined ? `Off until ${t(off.until)}` : "Off"}</span>`;
}
