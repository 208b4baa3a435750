/**
 * Private files written atomically (issue 10, item 5): the secrets file, its marker of secrets not yet
 * saved, and the embedded emulator's state file.
 *
 * A write creates a temporary file in the same folder (mode 0600 from the start, `wx`: never an
 * existing file or a symlink), writes, fsyncs, closes, renames it over the target and fsyncs the
 * folder, so that a reader sees the old file or the new one, never a part, even after a crash. The
 * folder is created 0700 when missing. A process killed in the middle leaves its temporary file
 * behind; its name holds the writer's pid, and every later write to the same target (and
 * {@link removeStaleTemps}) deletes the temporary files of writers that no longer run.
 *
 * No dependency: `write-file-atomic` (npm) does the same but names its temporary files with a hash a
 * later run cannot recognise, so a kill leaves them for good.
 */

import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";

/** Mode of private files: read and write for the owner only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of folders carte creates for private files. */
export const PRIVATE_DIR_MODE = 0o700;

const TEMP_MARK = ".carte-tmp-";

function tempPrefix(file: string): string {
  return `.${path.basename(file)}${TEMP_MARK}`;
}

/** Whether a process with this id runs (one we may not signal counts as running). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Deletes the temporary files that writers of `file` left behind when they were killed: those named
 * for `file` whose writer process no longer runs. A missing folder is fine. Returns the names deleted.
 */
export async function removeStaleTemps(file: string): Promise<string[]> {
  const dir = path.dirname(file);
  const prefix = tempPrefix(file);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || running(pid)) continue;
    await rm(path.join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Mode of the file; default {@link PRIVATE_FILE_MODE}. */
  mode?: number;
  /** Mode of the folders created for it; default {@link PRIVATE_DIR_MODE}. */
  dirMode?: number;
}

/**
 * Replaces `file` with `data` atomically (see the module comment). Creates missing folders with
 * `dirMode`. Rejects with the file system's error (its `code`: EACCES, ENOSPC, …); the temporary file
 * is removed on failure.
 */
export async function writeFileAtomic(
  file: string,
  data: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: options.dirMode ?? PRIVATE_DIR_MODE });
  await removeStaleTemps(file);
  const tmp = path.join(dir, `${tempPrefix(file)}${process.pid}-${randomBytes(6).toString("hex")}`);
  const handle = await open(tmp, "wx", options.mode ?? PRIVATE_FILE_MODE);
  try {
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  // The rename is durable once the folder is synced; not every platform can open a folder.
  try {
    const d = await open(dir, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // best effort
  }
}
