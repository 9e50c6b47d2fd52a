/**
 * Reading a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1): the parameters MCP clients
 * act on are `resource_metadata`, `scope` and `error`.
 */

/** The parameters of the Bearer challenge, lower-cased names; empty when there is none. */
export function bearerChallenge(header: string | null): Record<string, string> {
  if (!header) return {};
  const start = header.search(/(^|[\s,])bearer(\s|$)/i);
  if (start < 0) return {};
  const params: Record<string, string> = {};
  // auth-param = token BWS "=" BWS ( token / quoted-string ); a following scheme name ends the list.
  const re = /\s*,?\s*([A-Za-z0-9_!#$%&'*+.^`|~-]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^\s,]+)|\s*,?\s*([A-Za-z0-9_-]+)(?=\s|$)/gy;
  re.lastIndex = header.slice(start).search(/bearer/i) + start + "bearer".length;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    if (m[4] !== undefined) break; // the next challenge's scheme
    const name = m[1]!.toLowerCase();
    params[name] = m[3] !== undefined ? m[3].replace(/\\(.)/g, "$1") : m[2]!;
  }
  return params;
}

/** The scopes of a challenge's `scope` parameter (space-separated), if it has one. */
export function challengeScopes(params: Record<string, string>): string[] | undefined {
  const scope = params.scope?.trim();
  return scope ? scope.split(/\s+/) : undefined;
}
