/**
 * A fake of the three GitHub endpoints the Action uses for its plan comment (list, create and update
 * the comments of pull request 7), a real server on loopback; records every request and its token.
 */

import { createServer, type Server } from "node:http";

/** A pull-request comment as GitHub answers it. */
export interface Comment {
  id: number;
  body: string;
  user: { login: string };
}

/** A fake of the three GitHub endpoints the Action uses; records every request. */
export async function fakeGitHub(): Promise<{
  url: string;
  comments: Comment[];
  calls: string[];
  tokens: string[];
  server: Server;
}> {
  const comments: Comment[] = [];
  const calls: string[] = [];
  const tokens: string[] = [];
  let next = 1;
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => (raw += d.toString()));
    req.on("end", () => {
      calls.push(`${req.method} ${req.url}`);
      tokens.push(String(req.headers.authorization));
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const url = new URL(req.url ?? "/", "http://x");
      if (req.method === "GET" && /\/issues\/7\/comments$/.test(url.pathname)) return send(200, comments);
      if (req.method === "POST" && /\/issues\/7\/comments$/.test(url.pathname)) {
        const c = {
          id: next++,
          body: (JSON.parse(raw) as { body: string }).body,
          // GitHub writes the token's login on the comment; carte finds only its own comments again.
          user: { login: "github-actions[bot]" },
        };
        comments.push(c);
        return send(201, c);
      }
      const m = /\/issues\/comments\/(\d+)$/.exec(url.pathname);
      if (req.method === "PATCH" && m) {
        const c = comments.find((x) => x.id === Number(m[1]))!;
        c.body = (JSON.parse(raw) as { body: string }).body;
        return send(200, c);
      }
      send(404, { message: "Not Found" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, comments, calls, tokens, server };
}
