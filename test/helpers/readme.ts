/**
 * The commands the README shows, as its tests run them: test/e2e/readme.test.ts runs the usage
 * commands from a copy of the repository, test/package/install.test.ts the Install section's in a
 * chain's repository with the packed package installed.
 */

/** The commands of the ```sh blocks of a part of the README, in order, one per line. */
function shCommands(text: string): string[] {
  const out: string[] = [];
  for (const block of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm))
    for (const line of block[1]!.split("\n")) {
      const command = line.trim();
      if (command === "" || command.startsWith("#") || command.startsWith("npm ci")) continue;
      out.push(command);
    }
  return out;
}

/** The README's "## Install" section: from its heading to the next one. */
function installSection(readme: string): string {
  const m = /^## Install\n[\s\S]*?(?=^## )/m.exec(readme);
  if (!m) throw new Error("the README has no ## Install section");
  return m[0];
}

/**
 * The commands of the README's ```sh blocks, in order, one per line, but for the Install section's:
 * those run in a chain's repository, after installing the package (test/package/install.test.ts).
 */
export function readmeCommands(readme: string): string[] {
  return shCommands(readme.replace(installSection(readme), ""));
}

/** The commands of the README's Install section, in order (run by test/package/install.test.ts). */
export function installCommands(readme: string): string[] {
  return shCommands(installSection(readme));
}
