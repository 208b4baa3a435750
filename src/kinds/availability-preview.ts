/**
 * How `carte preview` shows an item's availability (src/kinds/show.ts `KindPreview`): an item or option
 * switched off after the plan is greyed, with the time it comes back on the store's clock and its
 * instant; one the plan switches back on says so. Drawn on the item by the items kind's part
 * (src/kinds/items-preview.ts); here, apart from the availability kind's module, which the items kind
 * is below.
 */

import { own } from "../model.js";
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
    const shown = c.diff.find((d) => d.attribute === "state")?.after;
    if (after.available) return { off: false, change: c };
    // The files' time in the store's zone with its date, when it is this very instant; else the plan's.
    const until =
      s?.shown !== undefined && s.until === after.until
        ? `${s.shown} (${after.until})`
        : typeof shown === "string" && shown.startsWith("off until ")
          ? shown.slice(10)
          : after.until;
    return { off: true, change: c, ...(until !== undefined ? { until } : {}) };
  }
  if (!a || !a.unavailable.includes(sku)) return { off: false };
  const until = s?.shown ?? s?.until;
  return { off: true, ...(until !== undefined ? { until } : {}) };
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
