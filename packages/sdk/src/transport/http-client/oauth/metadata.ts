/**
 * The metadata documents of OAuth discovery and how to fetch them: RFC 9728 protected-resource metadata and
 * RFC 8414 authorization-server metadata (OpenID Connect discovery documents carry the same fields).
 */
import { BODY_LIMITS, type BodyBound, readBoundedText } from "../../../_internal/bounded-body.ts";
import { fetchFollowingRedirects } from "../../../_internal/redirects.ts";
import { AgentdError } from "../../../wire/errors.ts";

/** RFC 9728 §2, the fields agentd uses. */
export interface ResourceMetadata {
  resource?: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
}

/** RFC 8414 §2 (and OpenID Connect Discovery §3), the fields agentd uses. */
export interface AuthServerMetadata {
  issuer?: string;
  authorization_endpoint?: string;
  token_endpoint: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  grant_types_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  code_challenge_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/i;

/** OAuth 2.1 §1.5: every endpoint is TLS, except on loopback. Throws a one-line error otherwise. */
export function requireSecureUrl(value: string, what: string, server: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw authError(server, `${what} '${value}' is not a URL`);
  }
  if (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.test(url.hostname))) return url;
  throw authError(server, `${what} ${url.origin} is not https://; OAuth needs TLS off loopback`);
}

/** An authorization failure of one server, as a user-facing `E_UNAUTHORIZED` line. */
export function authError(
  server: string,
  message: string,
  cause?: unknown,
  where?: { authorizationServer?: string; resource?: string },
): AgentdError {
  return new AgentdError("E_UNAUTHORIZED", `MCP server '${server}': ${message}`, {
    data: { server, ...where },
    cause: cause || undefined,
  });
}

/** The byte bound of an answer of an authorization server (1 MiB): a too-large one is one `E_UNAUTHORIZED` line. */
export const oauthBound = (server: string, what: string, url: string | URL): BodyBound => ({
  limit: BODY_LIMITS.issuer,
  peer: `MCP server '${server}': ${what}`,
  url,
  code: "E_UNAUTHORIZED",
});

/**
 * GET a JSON metadata document (a bare GET: it may follow a redirect, to another origin too; read to 1 MiB). Resolves undefined when it is not there (4xx), so the next well-known
 * location can be tried; throws on network errors, 5xx and bodies that are not a JSON object.
 */
export async function fetchMetadata<T>(fetchFn: typeof fetch, url: URL, server: string, signal?: AbortSignal): Promise<T | undefined> {
  let response: Response;
  try {
    const init = { headers: { accept: "application/json" }, signal };
    response = await fetchFollowingRedirects(fetchFn, url, init, {
      peer: `MCP server '${server}': OAuth metadata`,
      code: "E_UNAUTHORIZED",
    });
  } catch (e) {
    if (AgentdError.isInstance(e)) throw e;
    throw authError(server, `could not fetch OAuth metadata ${url.href}: ${e instanceof Error ? e.message : String(e)}`, e);
  }
  if (response.status >= 400 && response.status < 500) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw authError(server, `OAuth metadata ${url.href} answered HTTP ${response.status}`);
  }
  const text = await readBoundedText(response, oauthBound(server, "OAuth metadata", url));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw authError(server, `OAuth metadata ${url.href} is not a JSON object`);
  return body as T;
}
