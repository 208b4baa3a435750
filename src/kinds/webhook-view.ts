/**
 * How the plan's views show a change of a webhook, a store's (src/kinds/store-webhooks.ts) or the client's
 * (src/kinds/client-webhooks.ts): its URL and whether it is enabled, a copy the platform lists too many
 * times.
 */

import { fieldOf, type ChangeView } from "../show/view-model.js";
import { attributeDetails, plain, valueDetail, yesNo } from "../show/words.js";
import type { KindView } from "./show.js";

/**
 * The view of the webhooks of a kind whose resources `noun` names (`webhook`, `client webhook`),
 * placed at `order` among a store's changes.
 */
export function webhookView(noun: string, order: number): KindView {
  return {
    change(ch) {
      const create = ch.action === "create";
      const view: ChangeView = { action: ch.action, details: [], head: `${noun} ${ch.key}` };
      if (create) {
        const url = fieldOf(ch.after, "url");
        view.summary = `${typeof url === "string" ? url : plain(url)}${fieldOf(ch.after, "enabled") === false ? " (disabled)" : ""}`;
      }
      for (const d of create ? [] : ch.diff) {
        if (d.attribute === "enabled")
          view.details.push(valueDetail("enabled", yesNo, d.before, d.after, create));
        else if (d.attribute === "copies")
          view.details.push({ label: "listed", before: `${String(d.before)} times`, after: "once" });
        else if (d.attribute === "url")
          view.details.push(valueDetail("url", String, d.before, d.after, create));
        else view.details.push(...attributeDetails(d.attribute, d.before, d.after, create));
      }
      return [{ order, sort: ch.key, view }];
    },
  };
}
