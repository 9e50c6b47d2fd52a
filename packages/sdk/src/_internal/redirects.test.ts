import { afterEach, expect, test } from "bun:test";
import { AgentdError } from "../wire/errors.ts";
import { fetchFollowingRedirects } from "./redirects.ts";

const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

/** An origin answering by `route`; what reached it is recorded. */
function origin(route: (url: URL) => Response) {
  const seen: string[] = [];
  const s = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      seen.push(`${req.method} ${u.pathname} ${req.headers.get("x-api-key") ?? "-"} ${await req.text()}`);
      return route(u);
    },
  });
  servers.push(s);
  return { url: `http://127.0.0.1:${s.port}`, seen };
}

const redirect = (status: number, location: string) => new Response(null, { status, headers: { location } });

async function refusal(p: Promise<unknown>): Promise<AgentdError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!AgentdError.isInstance(e)) throw new Error(`expected an AgentdError, got ${String(e)}`);
  return e;
}

test("a redirect within the origin is followed, the body kept on 307/308", async () => {
  const a = origin((u) => (u.pathname === "/v1" ? redirect(307, "/v1/") : new Response("ok")));
  const res = await fetchFollowingRedirects(
    fetch,
    `${a.url}/v1`,
    { method: "POST", body: "b", headers: { "x-api-key": "k" } },
    { peer: "p" },
  );
  expect(await res.text()).toBe("ok");
  expect(a.seen).toEqual(["POST /v1 k b", "POST /v1/ k b"]);
});

test("to another origin: refused with a key or a body (naming both origins), followed for a bare GET unless same-origin only", async () => {
  const b = origin(() => new Response("there"));
  const a = origin((u) => redirect(302, `${b.url}${u.pathname}`));
  const withKey = await refusal(
    fetchFollowingRedirects(fetch, `${a.url}/x`, { headers: { "x-api-key": "k" } }, { peer: "model endpoint" }),
  );
  expect(withKey.message).toBe(
    `model endpoint redirected GET to another origin (${b.url}, from ${a.url}), which agentd does not follow with credentials or a request body; configure the final URL instead`,
  );
  const withBody = await refusal(
    fetchFollowingRedirects(fetch, `${a.url}/x`, { method: "PUT", body: "{}" }, { peer: "p", code: "E_TRANSPORT" }),
  );
  expect(withBody.code).toBe("E_TRANSPORT");
  expect(b.seen).toEqual([]);
  const bare = await fetchFollowingRedirects(fetch, `${a.url}/card`, { headers: { accept: "application/json" } }, { peer: "p" });
  expect(await bare.text()).toBe("there");
  expect(b.seen).toEqual(["GET /card - "]);
  await refusal(fetchFollowingRedirects(fetch, `${a.url}/card`, {}, { peer: "p", sameOriginOnly: true }));
  expect(b.seen).toHaveLength(1);
});

test("a POST is not turned into a GET (302, 303), and a loop ends after five redirects", async () => {
  const a = origin((u) => (u.pathname === "/post" ? redirect(302, "/elsewhere") : redirect(301, "/loop")));
  const post = await refusal(fetchFollowingRedirects(fetch, `${a.url}/post`, { method: "POST", body: "b" }, { peer: "p" }));
  expect(post.message).toContain("with HTTP 302, which would turn the POST into a GET");
  const loop = await refusal(fetchFollowingRedirects(fetch, `${a.url}/loop`, {}, { peer: "p" }));
  expect(loop.message).toContain("more than 5 times");
});
