/**
 * A client's secret as the emulator keeps it at rest: the state file holds a salted scrypt
 * hash, never the secret. Against the embedded emulator the client secret is the user's own
 * `CARTE_CLIENT_SECRET`, so a clear copy in `.carte/emulator-state.json` would leak it to anyone who
 * reads the project folder.
 *
 * In memory the secret given by a seed or a successful login is kept, so that logins compare two
 * SHA-256 digests with `timingSafeEqual` instead of paying for scrypt each time; the hash is computed
 * once, when the state is first written.
 *
 * Stored form: `scrypt$N$r$p$<salt, base64url>$<32-byte key, base64url>` (node:crypto `scrypt`).
 *
 * The webhook secrets the emulator makes for a client are kept in the state file sealed with a key
 * derived from that client's secret ({@link ClientSecret.seal}: AES-256-GCM, the key from scrypt with
 * a random salt), so the file holds no usable secret at all: after a restart they are opened once the
 * client's secret is known again (its seed, or its first login).
 */

import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  scryptSync,
  timingSafeEqual,
} from "node:crypto";
import { InternalError } from "../errors.js";

const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const PREFIX = "scrypt";
const SEAL_PREFIX = "aes-256-gcm";

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
  /** The clear secret when known in this process (a seed, a provisioning, a login); never written. */
  private clear: string | undefined;
  /** Keys derived from the clear secret, by salt (base64url), for sealing webhook secrets. */
  private readonly keys = new Map<string, Buffer>();
  private sealSalt: string | undefined;

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
    // Remember it: later logins need no scrypt, and sealed webhook secrets can be opened.
    if (ok) {
      this.digest = digest;
      this.clear = candidate;
    }
    return ok;
  }

  /** Whether the clear secret is known in this process (then {@link seal} and {@link open} work). */
  get known(): boolean {
    return this.clear !== undefined;
  }

  private key(salt: string): Buffer {
    let key = this.keys.get(salt);
    if (!key) {
      key = scryptSync(this.clear ?? "", Buffer.from(salt, "base64url"), KEY_BYTES, SCRYPT);
      this.keys.set(salt, key);
    }
    return key;
  }

  /**
   * Seals a value (a webhook secret of this client) for the state file:
   * `aes-256-gcm$<salt>$<iv>$<tag>$<ciphertext>`, base64url. Throws when the clear secret is unknown.
   */
  seal(value: string): string {
    if (this.clear === undefined) throw new InternalError("the client's secret is not known: cannot seal");
    this.sealSalt ??= randomBytes(16).toString("base64url");
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key(this.sealSalt), iv);
    const data = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      SEAL_PREFIX,
      this.sealSalt,
      iv.toString("base64url"),
      tag.toString("base64url"),
      data.toString("base64url"),
    ].join("$");
  }

  /** Opens a value sealed by {@link seal}; `undefined` when the secret is unknown or the seal is not this secret's. */
  open(sealed: string): string | undefined {
    if (this.clear === undefined) return undefined;
    const parts = sealed.split("$");
    if (parts.length !== 5 || parts[0] !== SEAL_PREFIX) return undefined;
    try {
      const decipher = createDecipheriv(
        "aes-256-gcm",
        this.key(parts[1]!),
        Buffer.from(parts[2]!, "base64url"),
      );
      decipher.setAuthTag(Buffer.from(parts[3]!, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(parts[4]!, "base64url")), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      return undefined;
    }
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
