/**
 * The agent card as an HTTP answer: in the request's version (a v0.3 client cannot read a v1.0 card), with
 * an ETag so a client that polls it gets 304s, and caching that never shares a principal's extended card.
 */
import { sha256 } from "../../_internal/hash.ts";
import { A2aError, type AgentCard } from "../shared/types.ts";
import type { HttpRequestConn } from "../../transport/http-server/context.ts";
import type { Principal } from "../../serve/principal.ts";
import { cardToV03 } from "./v03/card.ts";
import { wireVersion } from "./wire-version.ts";

/** The public card (no principal) or a principal's extended card, as the response to `req`. */
export function cardResponse(
  req: Request,
  conn: HttpRequestConn,
  card: (principal?: Principal, origin?: string) => AgentCard,
  principal?: Principal,
): Response {
  // The public card follows the request's version (absent means 0.3): a v0.3 client cannot read a v1.0 card.
  const w = wireVersion(req);
  const legacy = !principal && !(w instanceof A2aError) && w.version === "0.3";
  // Behind a proxy, the URLs in the card are the origin the proxy says the client reached.
  const origin = conn.publicOrigin;
  const body = JSON.stringify(legacy ? cardToV03(card(undefined, origin)) : card(principal, origin));
  const etag = `"${sha256(body, "base64url").slice(0, 27)}"`;
  const headers = {
    "content-type": "application/json",
    etag,
    vary: "A2A-Version",
    "cache-control": principal || origin ? "private, max-age=60" : "public, max-age=300",
  };
  if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  return new Response(req.method === "HEAD" ? null : body, { headers });
}
