/**
 * A chaos proxy: a TCP proxy on 127.0.0.1 in front of an HTTP/1.1 server (the emulator), which breaks
 * connections between a client and it the way a real network does, below anything HTTP can say:
 *
 * - `reset`: the connection is reset (TCP RST) when a request arrives (the server never sees it) or
 *   when its answer starts (the server processed it; the client gets ECONNRESET);
 * - `cut`: the connection is closed (FIN) in the middle of a request (the server gets part of it and
 *   drops it) or in the middle of an answer (the server processed it; the client gets part of the
 *   answer, down to none of it);
 * - `stall`: a request, or its answer, is held: nothing moves until the client gives up (its timeout)
 *   or `stallMs` pass, and the connection is then closed;
 * - `delay`: from a request on, every chunk of the connection, both ways, is held `delayMs` (a slow
 *   link; a delay longer than the client's timeout becomes a lost answer).
 *
 * A keep-alive connection carries tens of requests, reads first, and a few connections carry most of
 * them: a fault decided once per connection would break a handful of reads. So each request decides,
 * with a chance of `rate`, whether its connection breaks there, and how: faults fall on writes and
 * reads as the traffic does, and the share of connections broken follows from `rate` (the benchmark
 * reports it). The decisions are drawn from the project's seeded PRNG ({@link mulberry32}) in the
 * order the requests arrive: one seed gives one sequence of decisions (which request meets which
 * depends on the client's timing). The emulator's own fault injection (faults.ts) answers with HTTP
 * statuses or drops a request it parsed; this proxy breaks the bytes, so the client's transport, its
 * retries and the settling of lost answers (src/apply/settle.ts) meet partial requests, partial
 * answers and resets.
 *
 * Used by the fault suite (test/faults/chaos.test.ts) and `npm run bench:chaos`
 * (scripts/bench-chaos.mjs, which runs the built dist/, hence its place in src/ and not in
 * test/helpers); not part of the emulator's server.
 *
 * Requests are split by their `content-length` (what carte's client sends). A request with another
 * framing (`transfer-encoding: chunked`) cannot be followed to its end: the rest of its connection is
 * passed through unbroken.
 */

import { createServer, connect, type AddressInfo, type Server, type Socket } from "node:net";
import { isWriteCall } from "./audit.js";
import { mulberry32, pick, randInt, type Random } from "./prng.js";

/** The ways a connection is broken (see the module's description). */
export type ChaosKind = "reset" | "cut" | "stall" | "delay";

/** Every {@link ChaosKind}. */
export const CHAOS_KINDS: readonly ChaosKind[] = ["reset", "cut", "stall", "delay"];

/** The fault settings of a {@link ChaosProxy}. */
export interface ChaosFaults {
  /** Seed of the decisions (any integer). */
  seed: number;
  /**
   * Chance, for each request, that its connection breaks there, in [0, 1]; default 0.01 (about one
   * connection in five for carte's client, whose connections carry 15 to 25 requests each).
   */
  rate?: number;
  /**
   * Other chances for some calls: the first rule whose `match` holds for `METHOD /path` (no query)
   * gives the request's chance instead of `rate` (to break the calls a test is about more often).
   */
  routes?: readonly { match: RegExp; rate: number }[];
  /** The kinds drawn from, with equal chances; default all of {@link CHAOS_KINDS}. */
  kinds?: readonly ChaosKind[];
  /**
   * Where `reset`, `cut` and `stall` break: on the request's way in, or at its answer (the server made
   * the request's effect); default either, drawn.
   */
  where?: "request" | "answer";
  /** Longest a stalled connection is held open before it is closed, in ms; default 10 000. */
  stallMs?: number;
  /** Smallest and largest delay of a `delay` connection, per chunk, in ms; default [50, 600]. */
  delayMs?: readonly [number, number];
}

/** A fault that fired: which connection, how, and on which request. */
export interface ChaosEvent {
  /** The connection's number, from 1, in the order accepted. */
  connection: number;
  kind: ChaosKind;
  /**
   * `request`: broken on the request's way in (the server did not get all of it); `answer`: once the
   * whole request was passed on (the server may have processed it). `delay`: `both`.
   */
  where: "request" | "answer" | "both";
  /** The request the fault fired at (`delay`: the first one delayed). */
  method: string;
  path: string;
  /** Whether that request may change the platform ({@link isWriteCall}). */
  write: boolean;
  /** When it fired, ms since the epoch. */
  at: number;
}

/** Options of {@link startChaosProxy}. */
export interface ChaosProxyOptions {
  /** The server behind the proxy: an `http://host:port` address (the emulator's `url`). */
  target: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Faults from the start; default none (every byte passed through). */
  faults?: ChaosFaults;
}

/** A running chaos proxy. */
export interface ChaosProxy {
  /** Its address, `http://127.0.0.1:PORT`: give it to the client in place of the target's. */
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** The faults that fired, oldest first. */
  readonly events: readonly ChaosEvent[];
  /**
   * Replaces the fault settings and reseeds the decisions, for the next request of every connection;
   * `undefined`: no more faults drawn (a connection already slowed stays slow, a fault already drawn
   * still fires; {@link ChaosProxy.closeConnections} ends them).
   */
  setFaults(faults: ChaosFaults | undefined): void;
  /** Destroys every open connection (a client then opens clean ones). */
  closeConnections(): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** What is decided for the request a connection breaks at. */
interface Plan {
  kind: ChaosKind;
  where: "request" | "answer";
  /** Where in the request or answer a `cut` falls, as a share of its bytes, in [0, 1). */
  share: number;
  delayMs: number;
}

/** A request head read off the client's bytes. */
interface Head {
  method: string;
  path: string;
  /** Bytes of the head, blank line included. */
  headBytes: number;
  /** Bytes of the body by `content-length`; undefined for another framing. */
  bodyBytes: number | undefined;
}

const HEAD_END = Buffer.from("\r\n\r\n");
/** Longest head followed; a longer one is passed through unbroken. */
const MAX_HEAD = 64 * 1024;

/** Parses a request head (`buf` ends with its blank line). */
function parseHead(buf: Buffer): Head {
  const text = buf.toString("latin1");
  const lines = text.split("\r\n");
  const [method = "", target = ""] = (lines[0] ?? "").split(" ");
  const q = target.indexOf("?");
  let bodyBytes: number | undefined = 0;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "transfer-encoding") bodyBytes = undefined;
    else if (name === "content-length" && bodyBytes !== undefined) {
      bodyBytes = /^\d+$/.test(value) ? Number(value) : undefined;
    }
  }
  return { method, path: q >= 0 ? target.slice(0, q) : target, headBytes: buf.length, bodyBytes };
}

/** Draws the decision of one request; undefined: its connection goes on. */
function decide(rnd: Random, f: ChaosFaults, head: Head): Plan | undefined {
  const call = `${head.method} ${head.path}`;
  const rate = f.routes?.find((r) => r.match.test(call))?.rate ?? f.rate ?? 0.01;
  // Always the same draws, so that one decision does not shift the next ones by its kind.
  const faulted = rnd() < rate;
  const kind = pick(rnd, f.kinds && f.kinds.length > 0 ? f.kinds : CHAOS_KINDS);
  const drawn = rnd() < 0.5 ? "request" : "answer";
  const where = f.where ?? drawn;
  const share = rnd();
  const [lo, hi] = f.delayMs ?? [50, 600];
  const delayMs = randInt(rnd, lo, hi);
  return faulted ? { kind, where, share, delayMs } : undefined;
}

/** What a connection of a chaos proxy asks of the proxy: its faults, read when they are needed. */
interface ChaosContext {
  /** The fault a request draws, or undefined (none drawn, or no faults set). */
  draw(head: Head): Plan | undefined;
  /** How long a stalled connection is held before it is closed, in milliseconds. */
  stallMs(): number;
  /** Where the faults that fire are listed. */
  events: ChaosEvent[];
}

/**
 * One connection through a chaos proxy: the client's bytes go to the target and the target's back,
 * request by request (heads parsed, bodies counted), until a request draws a fault that breaks the
 * connection on its way in or on its way back, or slows it.
 */
class ChaosConnection {
  /** Held before every chunk, once a request drew `delay`. */
  private delayMs = 0;
  /** A cut closes both sides itself (its last bytes must go out); otherwise a side that closes ends the other. */
  private cutting = false;
  private state: "head" | "body" | "target" | "through" | "fired" = "head";
  /** Bytes of a head not yet complete. */
  private pending = Buffer.alloc(0);
  /** Body bytes of the current request still to pass. */
  private body = 0;
  /** The last request whose head was read. */
  private head: Head | undefined;
  /** The fault of the connection, once a request drew one. */
  private plan: Plan | undefined;
  /** The next bytes of the server are the answer to break. */
  private breakAnswer = false;
  /** Bytes of a request broken on its way in, head and body. */
  private total = 0;
  /** Its bytes passed on. */
  private passed = 0;

  constructor(
    private readonly id: number,
    private readonly client: Socket,
    private readonly upstream: Socket,
    private readonly proxy: ChaosContext,
  ) {
    client.on("error", () => this.end());
    upstream.on("error", () => this.end());
    client.on("close", () => this.cutting || this.after(() => upstream.destroy()));
    upstream.on("close", () => this.cutting || this.after(() => client.destroy()));
    client.on("data", (chunk: Buffer) => this.fromClient(chunk));
    client.on("end", () => this.after(() => upstream.end()));
    upstream.on("data", (chunk: Buffer) => this.fromTarget(chunk));
    upstream.on("end", () => this.after(() => client.end()));
  }

  /** Closes both sides. */
  private end(): void {
    this.client.destroy();
    this.upstream.destroy();
  }

  /** Runs `fn` once the chunks sent before are out: at once, or after the connection's delay. */
  private after(fn: () => void): void {
    if (this.delayMs === 0) fn();
    else setTimeout(fn, this.delayMs);
  }

  /** Lists a fault that fired on this connection. */
  private fired(kind: ChaosKind, where: ChaosEvent["where"], head: Head | undefined): void {
    this.proxy.events.push({
      connection: this.id,
      kind,
      where,
      method: head?.method ?? "",
      path: head?.path ?? "",
      write: head ? isWriteCall(head.method, head.path) : false,
      at: Date.now(),
    });
  }

  /** Writes a chunk on, held `delayMs` once the connection is slowed. */
  private send(to: Socket, chunk: Buffer): void {
    if (this.delayMs === 0) to.write(chunk);
    // One delay for every chunk: timers of one duration fire in the order they were set.
    else setTimeout(() => to.destroyed || to.write(chunk), this.delayMs);
  }

  /** Holds the connection, both sides paused, until the stall time closes it. */
  private stall(where: "request" | "answer"): void {
    this.state = "fired";
    this.fired("stall", where, this.head);
    this.client.pause();
    this.upstream.pause();
    const timer = setTimeout(() => this.end(), this.proxy.stallMs());
    timer.unref();
    this.client.once("close", () => clearTimeout(timer));
  }

  /** Bytes of the request broken on its way in: a prefix passed on for a `cut`, then both closed. */
  private target(p: Plan, bytes: Buffer): Buffer {
    if (p.kind !== "cut") {
      if (p.kind === "stall") this.stall("request");
      else {
        this.state = "fired";
        this.fired("reset", "request", this.head);
        this.upstream.destroy();
        this.client.resetAndDestroy();
      }
      return Buffer.alloc(0);
    }
    // At least one byte, never the whole request (share < 1).
    const cutAt = Math.max(1, Math.floor(p.share * this.total));
    const piece = bytes.subarray(0, cutAt - this.passed);
    this.passed += piece.length;
    if (this.passed < cutAt) {
      this.upstream.write(piece);
      return Buffer.alloc(0);
    }
    this.state = "fired";
    this.fired("cut", "request", this.head);
    this.cutting = true;
    this.upstream.end(piece, () => this.upstream.destroy());
    this.client.end();
    return Buffer.alloc(0);
  }

  /**
   * Bytes from the client: passed on request by request, each head read to draw a fault; a request
   * that drew one on its way in is broken, one whose framing is not followed lets the rest pass.
   */
  private fromClient(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      if (this.state === "fired") return; // a stalled request is held, a broken one dropped
      if (this.state === "through") {
        this.send(this.upstream, rest);
        return;
      }
      if (this.state === "target") {
        rest = this.target(this.plan!, rest);
        continue;
      }
      if (this.state === "body") {
        const piece = rest.subarray(0, this.body);
        this.send(this.upstream, piece);
        this.body -= piece.length;
        rest = rest.subarray(piece.length);
        if (this.body === 0) this.state = "head";
        continue;
      }
      this.pending = Buffer.concat([this.pending, rest]);
      rest = Buffer.alloc(0);
      const at = this.pending.indexOf(HEAD_END);
      if (at < 0) {
        if (this.pending.length > MAX_HEAD) {
          // Not a request this proxy follows: passed through unbroken.
          this.state = "through";
          this.send(this.upstream, this.pending);
        }
        return;
      }
      this.head = parseHead(this.pending.subarray(0, at + HEAD_END.length));
      rest = this.pending;
      this.pending = Buffer.alloc(0);
      // A connection breaks once; a slowed one stays slow.
      const drawn = this.plan === undefined ? this.proxy.draw(this.head) : undefined;
      if (drawn) this.plan = drawn;
      if (drawn?.kind === "delay") {
        this.delayMs = drawn.delayMs;
        this.fired("delay", "both", this.head);
      } else if (drawn?.where === "request") {
        this.total = this.head.headBytes + (this.head.bodyBytes ?? 0);
        this.state = "target";
        continue;
      } else if (drawn) this.breakAnswer = true;
      if (this.head.bodyBytes === undefined) {
        this.state = "through"; // framing not followed: the rest of the connection passes unbroken
        this.breakAnswer = false;
        continue;
      }
      this.send(this.upstream, rest.subarray(0, this.head.headBytes));
      rest = rest.subarray(this.head.headBytes);
      this.body = this.head.bodyBytes;
      this.state = this.body > 0 ? "body" : "head";
    }
  }

  /**
   * Bytes from the target: passed back, unless they are the answer of the request that drew a fault on
   * its way back.
   */
  private fromTarget(chunk: Buffer): void {
    if (this.state === "fired") return; // stalled: paused, or broken: nothing more reaches the client
    if (!this.breakAnswer) {
      this.send(this.client, chunk);
      return;
    }
    // The answer of the request that drew the fault (a client sends no request before the last
    // one's answer ended): the server made its effect; the client never gets the answer whole.
    const p = this.plan!;
    if (p.kind === "stall") {
      this.stall("answer");
      return;
    }
    this.state = "fired";
    if (p.kind === "reset") {
      this.fired("reset", "answer", this.head);
      this.upstream.destroy();
      this.client.resetAndDestroy();
    } else {
      this.fired("cut", "answer", this.head);
      this.cutting = true;
      this.upstream.destroy();
      this.client.end(chunk.subarray(0, Math.floor(p.share * chunk.length)));
    }
  }
}

/**
 * Starts a chaos proxy in front of `target`.
 *
 * @returns once it listens.
 * @throws the listen error (a port in use) as node:net gives it.
 */
export async function startChaosProxy(options: ChaosProxyOptions): Promise<ChaosProxy> {
  const target = new URL(options.target);
  const targetHost = target.hostname;
  const targetPort = Number(target.port || 80);
  let faults = options.faults;
  let rnd = faults ? mulberry32(faults.seed) : undefined;
  let connections = 0;
  const events: ChaosEvent[] = [];
  const open = new Set<Socket>();

  const track = (s: Socket) => {
    open.add(s);
    s.once("close", () => open.delete(s));
  };

  const context: ChaosContext = {
    draw: (head) => (faults && rnd ? decide(rnd, faults, head) : undefined),
    stallMs: () => faults?.stallMs ?? 10_000,
    events,
  };

  const server: Server = createServer({ noDelay: true }, (client) => {
    const id = ++connections;
    track(client);
    const upstream = connect({ host: targetHost, port: targetPort, noDelay: true });
    track(upstream);
    new ChaosConnection(id, client, upstream, context);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    get connections() {
      return connections;
    },
    events,
    setFaults(next) {
      faults = next;
      rnd = next ? mulberry32(next.seed) : undefined;
    },
    closeConnections() {
      for (const s of open) s.destroy();
    },
    close() {
      for (const s of open) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
