/**
 * The metadata documents of OAuth discovery and how to fetch them: RFC 9728 protected-resource metadata and
 * RFC 8414 authorization-server metadata (OpenID Connect discovery documents carry the same fields).
 */
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

/**
 * GET a JSON metadata document. Resolves undefined when it is not there (4xx), so the next well-known
 * location can be tried; throws on network errors, 5xx and bodies that are not a JSON object.
 */
export async function fetchMetadata<T>(fetchFn: typeof fetch, url: URL, server: string, signal?: AbortSignal): Promise<T | undefined> {
  let response: Response;
  try {
    response = await fetchFn(url, { headers: { accept: "application/json" }, redirect: "follow", signal });
  } catch (e) {
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
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw authError(server, `OAuth metadata ${url.href} is not a JSON object`);
  return body as T;
}
