/**
 * A git remote for the tests of the apply lock across machines: a bare repository reached over "ssh"
 * through a stand-in for ssh (carte's git allows https and ssh remotes only, src/gitops/safe-git.ts),
 * and checkouts whose own `.git/config` names the stand-in, as a runner's checkout would name its
 * credentials.
 */

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { git } from "../action/harness.js";

/** A bare origin, and a way to make checkouts of it. */
export interface TestRemote {
  /** The folder that holds everything (removed by `close`). */
  root: string;
  /** The bare repository. */
  origin: string;
  /** The ssh address of the origin. */
  url: string;
  /**
   * A new git checkout in `dir` (made when missing) whose `origin` is the remote, reached through the
   * stand-in for ssh. Returns `dir`.
   */
  checkout(dir?: string): string;
  /**
   * Makes the origin of the checkout `dir` a remote that never answers: the stand-in for ssh starts,
   * records its process id and waits, saying nothing (as a server that accepts the connection and
   * never replies).
   */
  hang(dir: string): void;
  /** The processes of the stand-ins of {@link hang} that still run. */
  hanging(): number[];
  /**
   * Makes the commit of the empty tree whose message is `message` in the origin and points `ref` at
   * it, as someone who may push the ref could (a lock carte never wrote). Returns the commit's name.
   */
  plantCommit(ref: string, message: string): string;
  /** Ends the stand-ins of {@link hang} still running, and removes everything. */
  close(): void;
}

/** Makes a {@link TestRemote}. */
export function testRemote(): TestRemote {
  const root = mkdtempSync(path.join(tmpdir(), "carte-remote-"));
  const ssh = path.join(root, "fake-ssh");
  // `ssh.variant simple`: `fake-ssh HOST COMMAND`; the far end's command (git-receive-pack '…') runs here.
  writeFileSync(ssh, '#!/bin/sh\nfor last; do :; done\nexec sh -c "$last"\n');
  chmodSync(ssh, 0o755);
  const origin = path.join(root, "origin.git");
  git(root, "init", "-q", "--bare", origin);
  const url = `ssh://carte.invalid${origin}`;
  const pids = path.join(root, "hanging-pids");
  const hang = path.join(root, "hanging-ssh");
  // `exec`: the process that waits is the one recorded (and the one git ends with its connection).
  writeFileSync(hang, `#!/bin/sh\necho $$ >> '${pids}'\nexec sleep 120\n`);
  chmodSync(hang, 0o755);
  const hanging = () =>
    (existsSync(pids) ? readFileSync(pids, "utf8") : "")
      .split("\n")
      .filter((l) => l !== "")
      .map(Number)
      .filter((pid) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      });
  let n = 0;
  return {
    root,
    origin,
    url,
    checkout(dir = path.join(root, `checkout-${++n}`)) {
      mkdirSync(dir, { recursive: true });
      git(dir, "init", "-q", "-b", "main");
      git(dir, "remote", "add", "origin", url);
      git(dir, "config", "core.sshCommand", ssh);
      git(dir, "config", "ssh.variant", "simple");
      return dir;
    },
    hang: (dir) => git(dir, "config", "core.sshCommand", hang),
    hanging,
    plantCommit(ref, message) {
      const file = path.join(root, `message-${++n}`);
      writeFileSync(file, message);
      const tree = git(origin, "hash-object", "-t", "tree", "-w", "/dev/null");
      const commit = git(origin, "commit-tree", tree, "-F", file);
      git(origin, "update-ref", ref, commit);
      return commit;
    },
    close: () => {
      for (const pid of hanging()) process.kill(pid, "SIGKILL");
      rmSync(root, { recursive: true, force: true });
    },
  };
}
