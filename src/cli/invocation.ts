/**
 * The command that runs this carte again, as a message that tells the user what to type next should
 * write it (`Next: npx carte validate …` after `carte init`). How carte was started decides it: the
 * path of the script Node was given (`process.argv[1]`, a link's own path, not the file it leads to)
 * and npm's environment when npm started it.
 *
 * - installed in the project, run as `npx carte`, `node_modules/.bin/carte` or by an npm script: the
 *   script lies in the `node_modules` of the current folder or of a folder above it, where `npx carte`
 *   finds it (`carte` alone is found only by a shell whose PATH has that `.bin`);
 * - fetched for one run by `npx @carte-oss/carte` (npm's own cache, npm_command `exec`): that again;
 * - installed globally (`npm install --global`): `carte`, on the PATH;
 * - run from a copy of carte's sources (`node bin/carte.js`): `node` and that script's path.
 */

import path from "node:path";

/** How carte was started: the script's path as Node was given it, npm's environment, the folder. */
export interface Invocation {
  /** `process.argv[1]`: the script Node runs, as given (a link is not followed). */
  entry: string | undefined;
  /** The environment (`npm_command` is `exec` when npx started carte). */
  env: NodeJS.ProcessEnv;
  /** The folder the command is run from, where the printed command is to be typed. */
  cwd: string;
  /** carte's package name (`@carte-oss/carte`), for a run that npx fetched. */
  packageName: string;
}

/** Characters a POSIX shell reads as themselves in a word; anything else is quoted. */
const PLAIN_WORD = /^[\w@%+=:,./-]+$/;

/**
 * A word as a POSIX shell reads it back: as it is when it holds only plain characters, else in single
 * quotes (a quote inside as `'\''`), so that a printed path with spaces can be pasted as one argument.
 */
export function shellWord(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Whether `dir` is `ancestor` or a folder inside it. */
function within(dir: string, ancestor: string): boolean {
  const rel = path.relative(ancestor, dir);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * The command that starts carte as it was started this time, to print before its arguments:
 * `npx carte`, `npx @carte-oss/carte`, `carte` or `node bin/carte.js` (see the module's comment).
 * Without a script path (carte run in-process, as by the tests), `carte`.
 */
export function carteCommand(how: Invocation): string {
  const { entry, env, cwd, packageName } = how;
  if (entry === undefined || entry === "") return "carte";
  const script = path.resolve(cwd, entry);
  const parts = script.split(path.sep);
  const modules = parts.indexOf("node_modules");
  if (modules > 0) {
    const project = parts.slice(0, modules).join(path.sep) || path.sep;
    if (within(cwd, project)) return "npx carte";
    // Outside the folder's projects: a run npx fetched into its cache, or a global installation.
    if (env.npm_command === "exec" || parts.includes("_npx")) return `npx ${packageName}`;
    return "carte";
  }
  if (/\.[cm]?js$/.test(script)) {
    const shown = within(script, cwd) ? path.relative(cwd, script) : script;
    return `node ${shellWord(shown)}`;
  }
  return "carte";
}
