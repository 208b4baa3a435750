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

  const server: Server = createServer({ noDelay: true }, (client) => {
    const id = ++connections;
    track(client);
    const upstream = connect({ host: targetHost, port: targetPort, noDelay: true });
    track(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
    let delayMs = 0; // held before every chunk, once a request drew `delay`
    /** Runs `fn` once the chunks sent before are out: at once, or after the connection's delay. */
    const after = (fn: () => void) => (delayMs === 0 ? fn() : void setTimeout(fn, delayMs));
    // A side that closes ends the other, unless a cut closes them itself (its last bytes must go out).
    let cutting = false;
    client.on("close", () => cutting || after(() => upstream.destroy()));
    upstream.on("close", () => cutting || after(() => client.destroy()));
    const fired = (kind: ChaosKind, where: ChaosEvent["where"], head: Head | undefined) =>
      events.push({
        connection: id,
        kind,
        where,
        method: head?.method ?? "",
        path: head?.path ?? "",
        write: head ? isWriteCall(head.method, head.path) : false,
        at: Date.now(),
      });

    let state: "head" | "body" | "target" | "through" | "fired" = "head";
    let pending = Buffer.alloc(0); // bytes of a head not yet complete
    let body = 0; // body bytes of the current request still to pass
    let head: Head | undefined; // the last request whose head was read
    let plan: Plan | undefined; // the fault of the connection, once a request drew one
    let breakAnswer = false; // the next bytes of the server are the answer to break
    let total = 0; // bytes of a request broken on its way in, head and body
    let passed = 0; // its bytes passed on

    /** Writes a chunk on, held `delayMs` once the connection is slowed. */
    const send = (to: Socket, chunk: Buffer) => {
      if (delayMs === 0) to.write(chunk);
      // One delay for every chunk: timers of one duration fire in the order they were set.
      else setTimeout(() => to.destroyed || to.write(chunk), delayMs);
    };
    const stall = (where: "request" | "answer") => {
      state = "fired";
      fired("stall", where, head);
      client.pause();
      upstream.pause();
      const timer = setTimeout(end, faults?.stallMs ?? 10_000);
      timer.unref();
      client.once("close", () => clearTimeout(timer));
    };
    /** Bytes of the request broken on its way in: a prefix passed on for a `cut`, then both closed. */
    const target = (p: Plan, bytes: Buffer): Buffer => {
      if (p.kind !== "cut") {
        if (p.kind === "stall") stall("request");
        else {
          state = "fired";
          fired("reset", "request", head);
          upstream.destroy();
          client.resetAndDestroy();
        }
        return Buffer.alloc(0);
      }
      // At least one byte, never the whole request (share < 1).
      const cutAt = Math.max(1, Math.floor(p.share * total));
      const piece = bytes.subarray(0, cutAt - passed);
      passed += piece.length;
      if (passed < cutAt) {
        upstream.write(piece);
        return Buffer.alloc(0);
      }
      state = "fired";
      fired("cut", "request", head);
      cutting = true;
      upstream.end(piece, () => upstream.destroy());
      client.end();
      return Buffer.alloc(0);
    };

    client.on("data", (chunk: Buffer) => {
      let rest = chunk;
      while (rest.length > 0) {
        if (state === "fired") return; // a stalled request is held, a broken one dropped
        if (state === "through") {
          send(upstream, rest);
          return;
        }
        if (state === "target") {
          rest = target(plan!, rest);
          continue;
        }
        if (state === "body") {
          const piece = rest.subarray(0, body);
          send(upstream, piece);
          body -= piece.length;
          rest = rest.subarray(piece.length);
          if (body === 0) state = "head";
          continue;
        }
        pending = Buffer.concat([pending, rest]);
        rest = Buffer.alloc(0);
        const at = pending.indexOf(HEAD_END);
        if (at < 0) {
          if (pending.length > MAX_HEAD) {
            // Not a request this proxy follows: passed through unbroken.
            state = "through";
            send(upstream, pending);
          }
          return;
        }
        head = parseHead(pending.subarray(0, at + HEAD_END.length));
        rest = pending;
        pending = Buffer.alloc(0);
        // A connection breaks once; a slowed one stays slow.
        const drawn = faults && rnd && plan === undefined ? decide(rnd, faults, head) : undefined;
        if (drawn) plan = drawn;
        if (drawn?.kind === "delay") {
          delayMs = drawn.delayMs;
          fired("delay", "both", head);
        } else if (drawn?.where === "request") {
          total = head.headBytes + (head.bodyBytes ?? 0);
          state = "target";
          continue;
        } else if (drawn) breakAnswer = true;
        if (head.bodyBytes === undefined) {
          state = "through"; // framing not followed: the rest of the connection passes unbroken
          breakAnswer = false;
          continue;
        }
        send(upstream, rest.subarray(0, head.headBytes));
        rest = rest.subarray(head.headBytes);
        body = head.bodyBytes;
        state = body > 0 ? "body" : "head";
      }
    });
    client.on("end", () => after(() => upstream.end()));

    upstream.on("data", (chunk: Buffer) => {
      if (state === "fired") return; // stalled: paused, or broken: nothing more reaches the client
      if (!breakAnswer) {
        send(client, chunk);
        return;
      }
      // The answer of the request that drew the fault (a client sends no request before the last
      // one's answer ended): the server made its effect; the client never gets the answer whole.
      const p = plan!;
      if (p.kind === "stall") {
        stall("answer");
        return;
      }
      state = "fired";
      if (p.kind === "reset") {
        fired("reset", "answer", head);
        upstream.destroy();
        client.resetAndDestroy();
      } else {
        fired("cut", "answer", head);
        cutting = true;
        upstream.destroy();
        client.end(chunk.subarray(0, Math.floor(p.share * chunk.length)));
      }
    });
    upstream.on("end", () => after(() => client.end()));
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
