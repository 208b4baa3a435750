/**
 * The parts of `carte import`, in the order they run: derived from the kind registry
 * (src/kinds/registry.ts), each kind that declares an `importPart` contributing it, in registry order.
 * Items come first: the others build on what the items part keeps.
 */

import { kinds } from "../kinds/registry.js";
import type { ImportPart } from "../kinds/import-types.js";

/** Every import part, with the kind that declares it. */
export const importParts: readonly ImportPart[] = kinds.flatMap((kind) =>
  kind.importPart ? [{ ...kind.importPart, kinds: [kind.name] }] : [],
);
