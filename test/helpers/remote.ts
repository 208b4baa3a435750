/**
 * A git remote for the tests of the apply lock across machines: a bare repository reached over "ssh"
 * through a stand-in for ssh (carte's git allows https and ssh remotes only, src/gitops/safe-git.ts),
 * and checkouts whose own `.git/config` names the stand-in, as a runner's checkout would name its
 * credentials.
 */

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}
