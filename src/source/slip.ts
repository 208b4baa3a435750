/**
 * The slip behind a YAML syntax error, in words. The yaml library reports where its parser lost its
 * way, which is often the line above the slip (a line indented too far makes the line before it "a
 * compact mapping"), and then reports every line after it again ("Implicit keys need to be on a single
 * line" two dozen times for one tab). This module reads the lines of the file the way a person does,
 * levels of indentation under their keys, finds the first line that breaks them (a tab, an indentation
 * that matches no key above, a line indented under a key that already has a value) and says which key
 * it belongs under. The parser's own first error is the fallback, put in words by its code.
 */

/** One located slip: 1-based line and column, and the message (without the "YAML syntax error: " prefix). */
export interface Slip {
  line: number;
  col: number;
  message: string;
}

/** A level of indentation: where its keys (or list dashes) start, and the line that opened it. */
interface Level {
  col: number;
  /** What the level belongs to, as shown in a message (`store:`, `the list item at line 3`). */
  owner: string;
  /** A key of the level already seen, to say "beside `title:`". */
  sibling?: string;
  siblingLine?: number;
}

/** Lines past this many are not read for a slip: the parser's message is used past them. */
const MAX_LINES = 200_000;

/** A key at the start of a line's content: a plain or quoted name followed by `:` and a space or the end. */
const KEY =
  /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{[\]},&*!|>%@`-][^#]*?|-[^\s#][^#]*?)[ \t]*:(?:[ \t]|$)/;

/** The part of a line after `key:` (or after `- `), its comment dropped, trimmed. */
function valueAfter(text: string): string {
  const hash = text.search(/(^|\s)#/);
  return (hash === -1 ? text : text.slice(0, hash)).trim();
}

/** Whether a value opens a block scalar (`|`, `>-`, `|2+`…), whose lines are text, not keys. */
function opensBlockScalar(value: string): boolean {
  return /^[|>][0-9+-]*$/.test(value);
}

/**
 * Brackets a value leaves open (`[a, b` → 1), quoted text ignored; a flow collection spans lines. With
 * `signed`, the balance (negative when the line closes more than it opens).
 */
function openBrackets(value: string, signed = false): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if ((c === '"' || c === "'") && (i === 0 || /[\s[{,:]/.test(value[i - 1]!))) quote = c;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
  }
  return signed ? depth : Math.max(0, depth);
}

/** `name:` as shown in a message, a long name cut (the file is hostile; callers escape the message). */
function showKey(key: string): string {
  const k = key.length > 40 ? `${key.slice(0, 40)}…` : key;
  return `\`${k}:\``;
}

function spaces(n: number): string {
  return n === 1 ? "1 space" : `${n} spaces`;
}

/**
 * Reads the lines of a YAML file up to `untilLine` (1-based, inclusive) and returns the first
 * indentation slip, or `undefined` when the lines read follow their levels. Only called for a file the
 * parser refused, so a shape this reading does not follow (a multi-line plain scalar) costs at most a
 * less precise message, never a false problem.
 *
 * @param text - the file's content.
 * @param untilLine - the last line to read (the parser's first error is at or before the slip's next line).
 */
export function findSlip(text: string, untilLine: number): Slip | undefined {
  const lines = text.split("\n", Math.min(untilLine, MAX_LINES));
  const levels: Level[] = [];
  /** The key of the previous line when it has no value, so the next line may open a level under it. */
  let opening: string | undefined;
  /** The previous content line, when its key has a value on the same line (nothing may nest under it). */
  let valued: { key: string; line: number; col: number } | undefined;
  let scalarCol: number | undefined; // inside a block scalar whose key is at this column
  let flow = 0; // brackets of a flow collection left open
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? "").replace(/\r$/, "");
    const lineNo = i + 1;
    const lead = /^[ \t]*/.exec(raw)![0];
    const rest = raw.slice(lead.length);
    if (rest === "" || rest.startsWith("#")) continue;
    if (lineNo === 1 && rest.startsWith("%")) continue;
    if (rest === "---" || rest.startsWith("--- ") || rest === "...") continue;
    if (scalarCol !== undefined) {
      if (!lead.includes("\t") && lead.length > scalarCol) continue;
      scalarCol = undefined;
    }
    if (flow > 0) {
      flow = Math.max(0, flow + openBrackets(rest, true));
      continue;
    }
    const tab = lead.indexOf("\t");
    if (tab !== -1) {
      const width = lead.replace(/\t/g, "").length;
      const expected = levels.length > 0 ? levels.at(-1)!.col : 0;
      const hint = opening
        ? `indent it with spaces under ${showKey(opening)}`
        : `indent it with ${spaces(Math.max(expected, width))}`;
      return {
        line: lineNo,
        col: tab + 1,
        message: `a tab in the indentation of this line: use spaces, not a tab (YAML does not allow tabs there); ${hint}`,
      };
    }
    let col = lead.length;
    let content = rest;
    // Each `- ` of the line is a list level; the key after the last one is a mapping level inside it.
    const items: number[] = [];
    for (;;) {
      const dash = /^-(?:[ \t]+|$)/.exec(content);
      if (!dash) break;
      items.push(col);
      col += dash[0].length;
      content = content.slice(dash[0].length);
      if (content === "" || content.startsWith("#")) break;
    }
    const first = items[0] ?? col;
    const slip = placeLine(levels, first, lineNo, raw, opening, valued);
    if (slip) return slip;
    // Record the line's own levels: its list items, then the mapping inside the last one.
    for (let k = 1; k < items.length; k++)
      levels.push({ col: items[k]!, owner: `the list item at line ${lineNo}` });
    if (items.length > 0 && content !== "" && !content.startsWith("#"))
      levels.push({ col, owner: `the list item at line ${lineNo}` });
    const key = KEY.exec(content);
    const top = levels.at(-1);
    if (key && top) {
      const name = key[1]!.replace(/^["']|["']$/g, "");
      top.sibling = name;
      top.siblingLine = lineNo;
      const value = valueAfter(content.slice(key[0].length));
      scalarCol = opensBlockScalar(value) ? col : undefined;
      flow = openBrackets(value);
      opening = value === "" || opensBlockScalar(value) ? name : undefined;
      valued = value === "" ? undefined : { key: name, line: lineNo, col };
      if (opensBlockScalar(value)) valued = undefined;
    } else {
      const value = valueAfter(content);
      flow = openBrackets(value);
      scalarCol = opensBlockScalar(value) ? first : undefined;
      opening = undefined;
      valued = undefined;
    }
    if (items.length > 0 && (content === "" || content.startsWith("#")))
      opening = `the list item at line ${lineNo}`;
  }
  return undefined;
}

/**
 * Fits a content line starting at column `col` into the levels above it, updating them; returns the
 * slip when it fits none.
 */
function placeLine(
  levels: Level[],
  col: number,
  lineNo: number,
  raw: string,
  opening: string | undefined,
  valued: { key: string; line: number; col: number } | undefined,
): Slip | undefined {
  const top = levels.at(-1);
  if (!top) {
    levels.push({ col, owner: "the top of the file" });
    return undefined;
  }
  if (col > top.col) {
    if (opening !== undefined) {
      levels.push({ col, owner: opening.startsWith("the list item") ? opening : showKey(opening) });
      return undefined;
    }
    if (valued) {
      const what = KEY.exec(raw.trimStart().replace(/^(-[ \t]+)+/, ""));
      const name = what ? showKey(what[1]!) : "this line";
      return {
        line: lineNo,
        col: col + 1,
        message:
          `${name} is indented ${spaces(col)}, under ${showKey(valued.key)} (line ${valued.line}), which already has a value: ` +
          `to put it beside ${showKey(valued.key)} under ${top.owner}, indent it ${spaces(top.col)}`,
      };
    }
    return undefined;
  }
  let deeper = top;
  while (levels.length > 0 && levels.at(-1)!.col > col) deeper = levels.pop()!;
  const now = levels.at(-1);
  if (now && now.col === col) return undefined;
  if (!now) {
    levels.push({ col, owner: "the top of the file" });
    return undefined;
  }
  // Between two levels: say the nearer one (the deeper on a tie), and the other.
  const shallow = now;
  const what = KEY.exec(raw.trimStart().replace(/^(-[ \t]+)+/, ""));
  const name = what ? showKey(what[1]!) : "this line";
  const candidates = [deeper, shallow].sort(
    (a, b) => Math.abs(a.col - col) - Math.abs(b.col - col) || b.col - a.col,
  );
  const [best, other] = candidates as [Level, Level];
  const beside = (l: Level) => (l.sibling ? `, beside ${showKey(l.sibling)} (line ${l.siblingLine})` : "");
  return {
    line: lineNo,
    col: col + 1,
    message:
      `${name} is indented ${spaces(col)}, which matches no key above it: ` +
      `indent it ${spaces(best.col)} to put it under ${best.owner}${beside(best)}, ` +
      `or ${spaces(other.col)} for ${other.owner}${beside(other)}`,
  };
}

/** The parser's codes put in words, for a syntax error {@link findSlip} does not explain. */
const PARSER_WORDS = new Map<string, string>([
  ["TAB_AS_INDENT", "a tab in the indentation of this line: use spaces, not a tab"],
  ["BAD_INDENT", "the indentation of this line does not match the keys above it"],
  ["MISSING_CHAR", "a closing bracket or quote is missing"],
  [
    "MULTILINE_IMPLICIT_KEY",
    "a key and its `:` must be on one line (is a quote or a bracket left open above?)",
  ],
  ["BLOCK_AS_IMPLICIT_KEY", "a key and its `:` must be on one line (is a line above indented too far?)"],
  ["UNEXPECTED_TOKEN", "unexpected text here (a stray character, or a value on the line of a list's `- `?)"],
  ["BAD_SCALAR_START", "a value cannot start with this character: put the value in quotes"],
  ["DUPLICATE_KEY", "this key is written twice in the same mapping: keep one"],
  ["BAD_ALIAS", "an alias (`*name`) names no anchor (`&name`) above it"],
]);

/**
 * The one problem to report for a file the parser refused: the slip {@link findSlip} finds up to the
 * line after the parser's first error, else the parser's first error in words (its code's words, or
 * its own message when the code is not one carte words).
 *
 * @param text - the file's content.
 * @param first - the parser's first error: its 1-based position, code and message.
 */
export function describeSyntaxError(
  text: string,
  first: { line: number; col: number; code: string; message: string },
): Slip {
  // A bracket left open (`[FRIES` with no `]`): the parser stops where the file or the block ends;
  // the slip is on the line that opened it.
  if (/end with an? [\]}]|Expected flow (sequence|map) to end/i.test(first.message)) {
    const opened = unclosedBracket(text, first.line);
    if (opened)
      return {
        ...opened,
        message: `the ${opened.bracket === "[" ? "[" : "{"} opened here is never closed: add a ${opened.bracket === "[" ? "]" : "}"} at the end of the list`,
      };
  }
  const slip = findSlip(text, first.line + 2);
  if (slip && slip.line <= first.line + 2) return slip;
  const words = PARSER_WORDS.get(first.code);
  return { line: first.line, col: first.col, message: words ?? first.message };
}

/** The last bracket still open at `untilLine` (quoted text and comments ignored), with its position. */
function unclosedBracket(
  text: string,
  untilLine: number,
): { line: number; col: number; bracket: string } | undefined {
  const open: { line: number; col: number; bracket: string }[] = [];
  const lines = text.split("\n", Math.min(untilLine, MAX_LINES));
  for (const [i, line] of lines.entries()) {
    let quote: string | undefined;
    for (let c = 0; c < line.length; c++) {
      const ch = line[c]!;
      if (quote) {
        if (ch === quote) quote = undefined;
      } else if (ch === "#" && (c === 0 || /\s/.test(line[c - 1]!))) break;
      else if ((ch === '"' || ch === "'") && (c === 0 || /[\s[{,:]/.test(line[c - 1]!))) quote = ch;
      else if (ch === "[" || ch === "{") open.push({ line: i + 1, col: c + 1, bracket: ch });
      else if (ch === "]" || ch === "}") open.pop();
    }
  }
  return open.at(-1);
}
