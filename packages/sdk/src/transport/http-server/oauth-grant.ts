/**
 * From a validated OAuth access token (a verified JWT or an active introspection answer) to a principal:
 * its scopes (`scope`, space-separated, or `scp`, a list or a string), the scopes the issuer requires, and
 * what those scopes allow under the issuer's `scopePermissions` mapping. Without a mapping every valid token
 * may run and read its status, and the `operatorScope` makes an operator.
 */
import type { Permission } from "../types.ts";
import type { AuthInfo } from "./auth.ts";
import type { JwtIssuerOptions, JwtOutcome } from "./jwt-verifier.ts";

/** The scopes a token's claims (or introspection answer) carry. */
export function scopesOf(claims: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  for (const v of [claims.scope, claims.scp]) {
    if (typeof v === "string") for (const s of v.split(/\s+/)) s && out.add(s);
    else if (Array.isArray(v)) for (const s of v) typeof s === "string" && out.add(s);
  }
  return out;
}

/** The principal of a valid token of `issuer` for `sub` with `scopes`, or why it is refused. */
export function grantFor(issuer: JwtIssuerOptions, sub: string, scopes: ReadonlySet<string>): JwtOutcome {
  const required = issuer.requiredScopes ?? [];
  if (!required.every((s) => scopes.has(s))) return { ok: false, error: "insufficient_scope", scope: required.join(" ") };
  const mapping = issuer.scopePermissions;
  const permissions = new Set<Permission>();
  if (mapping) for (const s of scopes) for (const p of mapping[s] ?? []) permissions.add(p);
  const operator = (issuer.operatorScope !== undefined && scopes.has(issuer.operatorScope)) || permissions.has("operator");
  if (operator) permissions.add("operator");
  const authInfo: AuthInfo = {
    principal: `${issuer.issuer}#${sub}`,
    scheme: "jwt",
    role: operator ? "operator" : undefined,
    // Without a mapping the role decides (today's behaviour); with one, exactly what the scopes grant.
    permissions: mapping ? ORDER.filter((p) => permissions.has(p)) : undefined,
    issuer: mapping ? issuer.issuer : undefined,
  };
  return { ok: true, authInfo };
}

const ORDER: Permission[] = ["run", "status", "operator"];

/** The scope a principal of `issuer` would need for `permission` (for a 403 challenge), if any grants it. */
export function scopeFor(issuer: JwtIssuerOptions | undefined, permission: Permission): string | undefined {
  if (!issuer) return undefined;
  if (issuer.scopePermissions) {
    const granting = Object.entries(issuer.scopePermissions).filter(([, ps]) => ps.includes(permission));
    // The narrowest scope that grants it: fewest other permissions come with it.
    granting.sort((a, b) => a[1].length - b[1].length);
    if (granting[0]) return granting[0][0];
  }
  return permission === "operator" ? issuer.operatorScope : undefined;
}
