/**
 * Ref names as git judges them, before git is asked to use one: a name git refuses (`--ref
 * refs/carte/../heads/main`) is refused here, in words, rather than by git once it reaches the remote.
 * {@link refNameProblem} is git's `check_refname_format` (refs.c; `git check-ref-format` without
 * options), rule for rule; test/security/git-hostile.test.ts compares the two on a corpus of hostile
 * names.
 */

/** What git refuses inside a component, each with its words (git's rules 3 to 5, 8 and 10). */
const FORBIDDEN: readonly [RegExp, string][] = [
  // eslint-disable-next-line no-control-regex -- control characters are what this rule refuses
  [/[\x00-\x1f\x7f]/, "a control character"],
  [/ /, "a space"],
  [/~/, "~"],
  [/\^/, "^"],
  [/:/, ":"],
  [/\?/, "?"],
  [/\*/, "*"],
  [/\[/, "["],
  [/\\/, "a backslash"],
  [/\.\./, "`..`"],
  [/@\{/, "`@{`"],
];

/**
 * Why git would refuse `name` as a ref name (`git check-ref-format NAME` exiting 1), in words; or
 * `undefined` when git takes it. Pure.
 */
export function refNameProblem(name: string): string | undefined {
  if (name === "@") return "it is `@` alone";
  for (const [pattern, words] of FORBIDDEN) if (pattern.test(name)) return `it holds ${words}`;
  const parts = name.split("/");
  if (parts.length < 2) return "it has one level only (a ref name is at least two, refs/NAME)";
  for (const part of parts) {
    if (part === "") return "it has an empty level (a leading, trailing or double `/`)";
    if (part.startsWith(".")) return `a level of it starts with a dot (${part})`;
    if (part.endsWith(".lock")) return `a level of it ends with .lock (${part})`;
  }
  if (name.endsWith(".")) return "it ends with a dot";
  return undefined;
}

/**
 * Why `ref` cannot be the ref of an apply lock, in words; `undefined` when it can: a name git takes
 * ({@link refNameProblem}) under `refs/`, neither a branch nor a tag, of letters, digits, `.`, `_`, `-`
 * and `/` (what carte.yaml `lock: git_ref:` allows). Pure.
 */
export function lockRefProblem(ref: string): string | undefined {
  const problem = refNameProblem(ref);
  if (problem !== undefined) return `git refuses it as a ref name: ${problem}`;
  if (!ref.startsWith("refs/")) return "a lock's ref is a full name under refs/";
  if (ref.startsWith("refs/heads/") || ref.startsWith("refs/tags/"))
    return "a lock's ref is never a branch or a tag";
  if (!/^[A-Za-z0-9._/-]+$/.test(ref))
    return "a lock's ref holds letters, digits, `.`, `_`, `-` and `/` only";
  return undefined;
}
