/**
 * A client's secret as the emulator keeps it (issue 10, item 5): the state file holds a salted scrypt
 * hash, never the secret. Against the embedded emulator the client secret is the user's own
 * `CARTE_CLIENT_SECRET`, so a clear copy in `.carte/emulator-state.json` would leak it to anyone who
 * reads the project folder.
 *
 * In memory the secret given by a seed or a successful login is kept, so that logins compare two
 * SHA-256 digests with `timingSafeEqual` instead of paying for scrypt each time; the hash is computed
 * once, when the state is first written.
 *
 * Stored form: `scrypt$N$r$p$<salt, base64url>$<32-byte key, base64url>` (node:crypto `scrypt`).
 */

import { createHash, randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const PREFIX = "scrypt";

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** Whether a string is a stored hash of {@link ClientSecret.hash}'s form. */
export function isSecretHash(value: unknown): value is string {
  return typeof value === "string" && /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/.test(value);
}

/** A client secret: checks candidates; persists as a salted hash only. */
export class ClientSecret {
  /** SHA-256 of the secret when known in this process (from a seed or a successful login). */
  private digest: Buffer | undefined;
  private stored: string | undefined;
  /** The clear secret, kept only until it is hashed (never written anywhere). */
  private clear: string | undefined;

  private constructor(digest: Buffer | undefined, stored: string | undefined) {
    this.digest = digest;
    this.stored = stored;
  }

  /** A secret given in clear (a seed, a provisioning, or an old state file). */
  static fromSecret(secret: string): ClientSecret {
    const s = new ClientSecret(sha256(secret), undefined);
    s.clear = secret;
    return s;
  }

  /** A secret known by its stored hash only (a state file). */
  static fromHash(hash: string): ClientSecret {
    return new ClientSecret(undefined, hash);
  }

  /** Whether `candidate` is the secret. Constant time in the candidate's content. */
  matches(candidate: string): boolean {
    const digest = sha256(candidate);
    if (this.digest) return timingSafeEqual(digest, this.digest);
    const ok = this.stored !== undefined && verifyHash(candidate, this.stored);
    // Remember the digest: later logins need no scrypt.
    if (ok) this.digest = digest;
    return ok;
  }

  /** The stored form: a salted scrypt hash (computed once). */
  hash(): string {
    if (this.stored === undefined) {
      const salt = randomBytes(16);
      const key = scryptSync(this.clear ?? "", salt, KEY_BYTES, SCRYPT);
      this.stored = [
        PREFIX,
        SCRYPT.N,
        SCRYPT.r,
        SCRYPT.p,
        salt.toString("base64url"),
        key.toString("base64url"),
      ].join("$");
    }
    this.clear = undefined;
    return this.stored;
  }
}

function verifyHash(candidate: string, stored: string): boolean {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== PREFIX) return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // A hand-edited state file must not make a login allocate gigabytes.
  if (!(N >= 2 && N <= 2 ** 20 && r >= 1 && r <= 32 && p >= 1 && p <= 16)) return false;
  const salt = Buffer.from(parts[4]!, "base64url");
  const key = Buffer.from(parts[5]!, "base64url");
  if (key.length !== KEY_BYTES) return false;
  const got = scryptSync(candidate, salt, KEY_BYTES, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 });
  return timingSafeEqual(got, key);
}
