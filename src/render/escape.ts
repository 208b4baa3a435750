/**
 * The one place where untrusted text is made safe to show. Store names, SKUs,
 * catalog names, titles, event names, file names and every message of the platform come from files a
 * pull request controls or from a remote service: printed raw, a store named
 * `"\e[2J\e[1;1H\e[32mNo changes\e[0m"` clears a reviewer's terminal and forges the plan, and a title
 * holding `</details>` or `@admin` rewrites the pull-request comment or pings someone.
 *
 * - {@link escapeTerminal}: for a terminal, a log line or an error message. Control characters (C0,
 *   DEL, C1: ESC, NUL, CR, LF, TAB, …), bidirectional overrides and isolates (U+202A–U+202E,
 *   U+2066–U+2069, and the marks U+200E, U+200F, U+061C) and the Unicode line and paragraph
 *   separators are shown as visible escapes (`\x1b`, `\n`, `\u202e`). Everything else, accents
 *   included, is left as it is; a backslash is not doubled, so a value escaped twice reads the same.
 * - {@link escapeMarkdown}: for GitHub-flavoured Markdown and the HTML inside it (the pull-request
 *   comment, the job summary, Markdown reports). Terminal escaping first (so no value spans a line),
 *   then the characters Markdown or HTML give a meaning to become character references (`&lt;`,
 *   `&#96;`, `&#124;` …), which GitHub shows as the character itself both in Markdown text and inside
 *   raw HTML such as `<details><summary>`; `@` and `#` are followed by a zero-width space so that a
 *   value can neither mention a user nor reference an issue.
 * - {@link codeSpan}: a value shown as code in Markdown (a store key in a table).
 * - {@link escapeFence}: for lines inside a fenced code block of Markdown (the plan's ```` ```diff ````
 *   blocks, an error's ```` ```text ```` block), where character references are shown as written.
 * - {@link escapeHtml}: for text put inside HTML elements (`<pre><code>` of the job summary).
 * - {@link escapeLog}: for lines of the GitHub Actions run log, where the runner reads workflow commands
 *   (`::error::`, `::add-mask::`, `##[…]`) from the step's output.
 * - {@link jsonSafe}: JSON text with the same characters written as `\uXXXX`, so that JSON printed on
 *   a terminal is inert too (JSON.stringify escapes C0 controls but not DEL, C1 nor bidi controls).
 *
 * Every helper that produces Markdown or HTML also keeps a value from opening or closing an HTML comment
 * (`<!--`, `-->`, `--!>`) and from holding {@link RECORD_MARKER}, the marker text of carte's hidden
 * reviewed-plan record (src/gitops/reviewed.ts): a value can never look like a record carte wrote.
 *
 * Pure functions; docs/security.md "Output" says what they promise and how it is tested.
 */

/**
 * The marker text of the hidden record of a reviewed plan in carte's pull-request comment
 * (src/gitops/reviewed.ts). No rendered value holds it: see {@link breakMarkers}.
 */
export const RECORD_MARKER = "carte-reviewed";

/** The record's marker in any case: a value holding it is broken up, whatever its case. */
const RECORD_MARKER_ANY_CASE = /carte-reviewed/gi;
const HAS_RECORD_MARKER = /carte-reviewed/i;

/** A zero-width space: invisible, it breaks a run of characters inside a code fence. */
const ZWSP = "\u200b";

/**
 * Breaks up what could open or close an HTML comment, or name carte's record, in text already escaped
 * for its medium. `markdown`: Markdown text or HTML, where `<` and `>` are character references already,
 * so only the marker text is left, its hyphen written `&#45;` (GitHub shows the hyphen). `fence`: inside
 * a code fence, where references are shown as written, a zero-width space goes between the characters
 * that would form `<!--`, `-->`, `--!>` and inside the marker text.
 */
function breakMarkers(text: string, medium: "markdown" | "fence"): string {
  if (medium === "markdown") {
    return text.replace(RECORD_MARKER_ANY_CASE, (m) => `${m.slice(0, 5)}&#45;${m.slice(6)}`);
  }
  return text
    .replace(/<!--/g, `<!${ZWSP}--`)
    .replace(/--(!?)>/g, `-${ZWSP}-$1>`)
    .replace(RECORD_MARKER_ANY_CASE, (m) => `${m.slice(0, 5)}${ZWSP}${m.slice(5)}`);
}

/** Characters a terminal or a log viewer acts on, or that reorder the text around them. */
const TERMINAL_UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function visible(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Options of {@link escapeTerminal}. */
export interface TerminalEscapeOptions {
  /**
   * Keep line feeds (`\n`) as they are: for messages carte builds from several lines. Every other
   * control character, CR included, is still escaped, so no line can be overwritten.
   */
  keepNewlines?: boolean;
}

/**
 * Shows control and bidirectional characters of `text` as visible escapes (`\x1b`, `\x00`, `\r`,
 * `\u202e`), so that the text cannot move the cursor, change colours, clear the screen, reorder what
 * follows it or start a new line on a terminal or in a log. Idempotent in effect: the result holds no
 * such character.
 */
export function escapeTerminal(text: string, options: TerminalEscapeOptions = {}): string {
  return text.replace(TERMINAL_UNSAFE, (ch) => (options.keepNewlines && ch === "\n" ? ch : visible(ch)));
}

/** Escapes each line of a multi-line message on its own: lines stay lines, nothing else moves. */
export function escapeLines(text: string): string {
  return escapeTerminal(text, { keepNewlines: true });
}

/** Characters Markdown (GFM) or HTML give a meaning to, as character references. */
const MARKDOWN_REFS: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\\": "&#92;",
  "`": "&#96;",
  "*": "&#42;",
  _: "&#95;",
  "~": "&#126;",
  "[": "&#91;",
  "]": "&#93;",
  "|": "&#124;",
  $: "&#36;",
  // A zero-width space after @ and # breaks mentions (@someone, @org/team) and references (#123,
  // owner/repo#123): GitHub links them in the rendered text, where character references are decoded.
  "@": "@&#8203;",
  "#": "#&#8203;",
};

/**
 * Makes a value safe inside GitHub-flavoured Markdown text, a table cell, or raw HTML (e.g.
 * `<summary>`): it cannot close a `<details>`, a code fence or a table cell, start an element, a
 * link, emphasis or math, mention a user or reference an issue, and never spans a line. Rendered, it
 * reads as the original text (control characters as visible escapes).
 */
export function escapeMarkdown(text: string): string {
  return breakMarkers(
    escapeTerminal(text).replace(/[&<>\\`*_~[\]|$@#]/g, (ch) => MARKDOWN_REFS[ch]!),
    "markdown",
  );
}

/** Values shown as a plain code span unchanged (`` `bog-centro` ``): nothing in them needs care. */
const PLAIN_CODE = /^[A-Za-z0-9 .,:;/+=%()'"-]*$/;

/**
 * A value shown as code in Markdown: a code span when it is plain, else a `<code>` element with the
 * value escaped by {@link escapeMarkdown} (a code span shows character references literally and is
 * closed by a backtick, so it cannot hold a hostile value).
 */
export function codeSpan(text: string): string {
  return PLAIN_CODE.test(text) && !HAS_RECORD_MARKER.test(text)
    ? `\`${text}\``
    : `<code>${escapeMarkdown(text)}</code>`;
}

/**
 * Text for the lines of a fenced code block (```` ```diff ````, ```` ```text ````), where Markdown shows
 * every character as written: control characters as visible escapes (line feeds kept, so a message
 * keeps its lines), and runs of three backticks or more, `<!--`, `-->` and the record's marker text
 * broken up by a zero-width space, so that no line can close the fence or look like an HTML comment
 * or a record carte wrote.
 */
export function escapeFence(text: string): string {
  const lines = escapeTerminal(text, { keepNewlines: true }).replace(/`{3,}/g, (m) => m.split("").join(ZWSP));
  return breakMarkers(lines, "fence");
}

/**
 * Escapes `&`, `<` and `>` for text inside an HTML element (so no comment opens or closes), and breaks
 * up the record's marker text. Lines are kept.
 */
export function escapeHtml(text: string): string {
  return breakMarkers(text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"), "markdown");
}

/**
 * A line that would start a workflow command: after blanks, `::`. Default-ignorable characters (U+200B,
 * U+FEFF, U+00AD…) count as nothing, since a comparison that is not ordinal skips them: `\u200b::error::`
 * is caught too.
 */
const COMMAND_LINE =
  /^((?:[^\S\n]|\p{Default_Ignorable_Code_Point})*):(?=\p{Default_Ignorable_Code_Point}*:)/gmu;

/** The older form of a workflow command, `##[`, anywhere in a line, default-ignorable characters skipped. */
const OLD_COMMAND = /#(\p{Default_Ignorable_Code_Point}*)#(\p{Default_Ignorable_Code_Point}*)\[/gu;

/**
 * Text for the run log of a GitHub Actions step. The runner reads a line whose first characters after
 * blanks are `::` as a workflow command (`::error::`, `::add-mask::`, `::stop-commands::`), and `##[`
 * anywhere in a line as one in the older form. Control characters are shown as visible escapes (line
 * feeds kept: each line of `text` is a line of the log), the first colon of a line that would start with
 * `::` as `\x3a`, and the second `#` of `##[` as `\x23`: a value reads the same, and never becomes a
 * command.
 */
export function escapeLog(text: string): string {
  return escapeTerminal(text, { keepNewlines: true })
    .replace(COMMAND_LINE, "$1\\x3a")
    .replace(OLD_COMMAND, "#$1\\x23$2[");
}

/** Characters JSON.stringify leaves raw that a terminal acts on or that reorder text. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (from JSON.stringify) with DEL, C1 controls, bidirectional controls and the line and
 * paragraph separators written as `\uXXXX` escapes. The same JSON value: these characters can only
 * occur inside strings, where the escape means the character itself.
 */
export function jsonSafe(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
