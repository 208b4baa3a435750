/**
 * Vitest global setup: every temporary folder of a test run goes into one folder of its own, removed
 * when the run ends. Tests make their projects, repositories, state files and sinks under
 * `os.tmpdir()` (over a hundred sites, most without a cleanup of their own, and the CLI's children
 * make theirs there too); `TMPDIR` is set before the workers start, so that they and every process
 * they spawn inherit it. A run that is killed leaves that one folder behind, named for what it is.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const saved = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), "carte-test-run-"));
  process.env.TMPDIR = root;
  return () => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    try {
      rmSync(root, { recursive: true, force: true });
    } catch (e) {
      // The tests have passed or failed already: a folder left behind is said, not made a failure.
      console.warn(`the test run's temporary folder ${root} was not removed: ${(e as Error).message}`);
    }
  };
}
