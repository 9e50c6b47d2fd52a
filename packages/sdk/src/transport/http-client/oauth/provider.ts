/**
 * OAuth 2.1 for one remote MCP server (MCP authorization spec 2025-03-26, 2025-06-18, 2025-11-25): the
 * {@link HttpAuthProvider} the Streamable HTTP transport calls.
 *
 * - `token()`: the stored access token, refreshed first when it expires within a minute. Concurrent calls
 *   share one refresh; across processes the store's lock (`withLock`) makes a second refresher read the
 *   first one's fresh token instead of refreshing again.
 * - `challenge()`: on 401 (or 403 `insufficient_scope`, step-up) discover the authorization server, pick
 *   the scopes (the challenge's `scope`, else configured `scopes`, else the resource's `scopes_supported`,
 *   else none; `offline_access` added for a login when the authorization server lists it; a step-up adds
 *   the challenge's scopes to those already granted), find the client identity, and run the grant: client
 *   credentials (headless), an identity assertion from the enterprise's IdP (headless, `identity-assertion.ts`),
 *   or authorization code with PKCE S256 through an interactive handler. Without a handler, a server that needs a person fails at once with the command
 *   to run. Concurrent challenges share one authorization; a request that was refused with a token that has
 *   since been replaced is simply retried.
 *
 * Tokens are stored under the server name and resource, so a token is only ever sent to the endpoint it
 * was issued for; they never appear in logs or error messages.
 */
import * as oauth from "oauth4webapi";
import type { Logger } from "../../../log.ts";
import { nullLogger } from "../../../log.ts";
import { forgetSecretValue, registerSecretValue } from "../../../secret-values.ts";
import type { AuthChallenge, HttpAuthProvider } from "../auth-provider.ts";
import { canonicalResource, type Discovery, discover } from "./discovery.ts";
import { type IdentityAssertionSettings, requestIdJag } from "./identity-assertion.ts";
import { authError, requireSecureUrl } from "./metadata.ts";
import { type ClientSettings, resolveClient } from "./registration.ts";
import { authorizationServer, JWT_BEARER_GRANT, requestToken, TokenRequestError } from "./token-request.ts";
import type { StoredTokens, TokenStore } from "./token-store.ts";
import { bearerChallenge, challengeScopes } from "./www-authenticate.ts";

/** Runs the user's part of the authorization code grant: visit `url`, return the redirect's query. */
export interface AuthorizationCodeHandler {
  /** The redirect URI registered for (and sent with) the request, e.g. a loopback listener. */
  redirectUri: string;
  authorize(url: URL, signal?: AbortSignal): Promise<URLSearchParams>;
}

/** Settings of one server's OAuth client (secrets already resolved). */
export interface OAuthSettings extends ClientSettings {
  /** Scopes to request when the server's challenge names none. */
  scopes?: string[];
  /**
   * `authorization_code` (a person grants; the default), `client_credentials` (machine-to-machine), or
   * `identity_assertion` (enterprise-managed: the IdP vouches for the person, `identity-assertion.ts`).
   */
  grant?: "authorization_code" | "client_credentials" | "identity_assertion";
  /** The IdP and ID token of the `identity_assertion` grant. */
  identityAssertion?: IdentityAssertionSettings;
}

/** Options of {@link OAuthClientProvider}. */
export interface OAuthProviderOptions {
  /** The server's name (errors, token store key, the `agentd auth login NAME` hint). */
  server: string;
  url: URL;
  settings: OAuthSettings;
  store: TokenStore;
  fetch?: typeof fetch;
  /** Present only when a person can authorize now (`agentd auth login`, or a test driver). */
  interactive?: AuthorizationCodeHandler;
  logger?: Logger;
}

/** Refresh this long before the access token expires (ms). */
const REFRESH_MARGIN_MS = 60_000;

/** The store key of a server's tokens: its name and canonical URL. */
export const tokenKey = (server: string, url: URL) => `${server} ${canonicalResource(url)}`;

/** OAuth 2.1 client of one MCP server. */
export class OAuthClientProvider implements HttpAuthProvider {
  private readonly fetchFn: typeof fetch;
  private readonly logger: Logger;
  private readonly key: string;
  private tokens: StoredTokens | undefined;
  private loaded: Promise<void> | undefined;
  private refreshing: Promise<boolean> | undefined;
  private authorizing: Promise<boolean> | undefined;
  private discovered: Discovery | undefined;
  /** The access token last registered as a secret. */
  private masked: string | undefined;

  constructor(private readonly options: OAuthProviderOptions) {
    this.fetchFn = options.fetch ?? fetch;
    this.logger = (options.logger ?? nullLogger).child({ server: options.server });
    this.key = tokenKey(options.server, options.url);
  }

  async token(): Promise<string | undefined> {
    await (this.loaded ??= this.options.store.getTokens(this.key).then((t) => void (this.tokens ??= t)));
    const t = this.tokens;
    if (t?.refreshToken && t.expiresAt !== undefined && t.expiresAt - Date.now() < REFRESH_MARGIN_MS) await this.refresh();
    const access = this.tokens?.accessToken;
    // The token goes to the server with every request: a server echoing it back must not hand it to
    // agentd's callers. The one it replaces is forgotten, so a long-lived agent's set stays small.
    if (access !== undefined && access !== this.masked) {
      if (this.masked !== undefined) forgetSecretValue(this.masked);
      registerSecretValue(access);
      this.masked = access;
    }
    return access;
  }

  async challenge(challenge: AuthChallenge, signal?: AbortSignal): Promise<boolean> {
    const params = bearerChallenge(challenge.wwwAuthenticate);
    if (challenge.status === 403 && params.error !== "insufficient_scope") return false;
    const sent = challenge.token ?? this.tokens?.accessToken;
    if (this.authorizing) {
      await this.authorizing.catch(() => {});
      return this.tokens !== undefined && this.tokens.accessToken !== sent;
    }
    if (this.tokens && sent !== undefined && this.tokens.accessToken !== sent) return true; // renewed meanwhile
    this.authorizing = this.authorize(challenge.status, params, signal, sent);
    try {
      return await this.authorizing;
    } finally {
      this.authorizing = undefined;
    }
  }

  private async authorize(status: number, params: Record<string, string>, signal?: AbortSignal, sent?: string): Promise<boolean> {
    const { settings } = this.options;
    // Another process (`agentd auth login`) may have stored a new token since this one was loaded.
    const stored = this.loaded && status === 401 ? await this.options.store.getTokens(this.key) : undefined;
    if (stored && stored.accessToken !== sent && stored.accessToken !== this.tokens?.accessToken) {
      this.tokens = stored;
      this.logger.info("mcp.oauth.reloaded", {});
      return true;
    }
    // A rejected (expired, revoked) token: a refresh is cheaper than a new grant.
    if (status === 401 && this.tokens?.refreshToken && (await this.refresh())) return true;
    const d = await this.discovery(params.resource_metadata, signal);
    let scopes = challengeScopes(params) ?? settings.scopes ?? d.resourceScopes;
    if (status === 403 && this.tokens?.scope) scopes = [...new Set([...this.tokens.scope.split(/\s+/), ...(scopes ?? [])])];
    // A person's authorization should outlive the access token: ask for a refresh token where the
    // authorization server says how (SEP-2207: a client MAY add `offline_access` when the server's
    // `scopes_supported` lists it, and MUST NOT otherwise). Only next to other scopes: a request whose
    // scope is left out gets the server's default, which `offline_access` alone would replace.
    if (
      (settings.grant ?? "authorization_code") === "authorization_code" &&
      scopes?.length &&
      d.metadata.scopes_supported?.includes("offline_access") &&
      !scopes.includes("offline_access")
    )
      scopes = [...scopes, "offline_access"];
    const scope = scopes?.length ? scopes.join(" ") : undefined;
    this.logger.info("mcp.oauth.authorize", { status, grant: settings.grant ?? "authorization_code", scope: scope || undefined });
    const tokens =
      settings.grant === "client_credentials"
        ? await this.clientCredentials(d, scope, signal)
        : settings.grant === "identity_assertion"
          ? await this.identityAssertion(d, scope, signal)
          : await this.authorizationCode(d, scope, signal);
    await this.adopt(tokens);
    return true;
  }

  private async discovery(resourceMetadata: string | undefined, signal?: AbortSignal): Promise<Discovery> {
    if (this.discovered && !resourceMetadata) return this.discovered;
    this.discovered = await discover(this.fetchFn, this.options.url, this.options.server, resourceMetadata, signal);
    return this.discovered;
  }

  private async clientCredentials(d: Discovery, scope: string | undefined, signal?: AbortSignal): Promise<StoredTokens> {
    const { server, settings, store } = this.options;
    if (!settings.clientId) throw authError(server, "the client_credentials grant needs oauth.clientId (and a secret or private key)");
    const client = await resolveClient(this.fetchFn, d, settings, store, undefined, server, signal);
    return this.grant(() => requestToken(this.fetchFn, d, client, { grant_type: "client_credentials", fields: { scope } }, server, signal));
  }

  private async identityAssertion(d: Discovery, scope: string | undefined, signal?: AbortSignal): Promise<StoredTokens> {
    const { server, settings, store } = this.options;
    const ia = settings.identityAssertion;
    if (!ia)
      throw authError(
        server,
        "the identity_assertion grant needs oauth.identityAssertion (the identity provider's tokenEndpoint and the ID token)",
      );
    if (!settings.clientId)
      throw authError(
        server,
        "the identity_assertion grant needs oauth.clientId (and its secret) at the MCP server's authorization server",
      );
    const client = await resolveClient(this.fetchFn, d, settings, store, undefined, server, signal);
    const assertion = await this.grant(() => requestIdJag(this.fetchFn, ia, d, scope, server, signal));
    return this.grant(() =>
      requestToken(this.fetchFn, d, client, { grant_type: JWT_BEARER_GRANT, fields: { assertion, scope } }, server, signal),
    );
  }

  private async authorizationCode(d: Discovery, scope: string | undefined, signal?: AbortSignal): Promise<StoredTokens> {
    const { server, settings, store, interactive } = this.options;
    if (!interactive)
      throw authError(server, `needs a person to authorize agentd and no token is stored; run: agentd auth login ${server}`, undefined, {
        authorizationServer: d.issuer,
        resource: d.resource,
      });
    const methods = d.metadata.code_challenge_methods_supported;
    if (methods && !methods.includes("S256"))
      throw authError(server, "the authorization server does not offer PKCE S256; refusing to authorize");
    if (!d.metadata.authorization_endpoint) throw authError(server, "the authorization server publishes no authorization_endpoint");
    const client = await resolveClient(this.fetchFn, d, settings, store, interactive.redirectUri, server, signal);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = requireSecureUrl(d.metadata.authorization_endpoint, "authorization endpoint", server);
    const q = url.searchParams;
    q.set("response_type", "code");
    q.set("client_id", client.clientId);
    q.set("redirect_uri", interactive.redirectUri);
    q.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
    q.set("code_challenge_method", "S256");
    q.set("state", state);
    q.set("resource", d.resource);
    if (scope) q.set("scope", scope);
    const answer = await interactive.authorize(url, signal);
    let callback: URLSearchParams;
    try {
      // The state must be ours; an `iss` (RFC 9207), when the server sends one, must be its issuer.
      callback = oauth.validateAuthResponse(authorizationServer(d), { client_id: client.clientId }, answer, state);
    } catch (e) {
      if (e instanceof oauth.AuthorizationResponseError)
        throw authError(
          server,
          `authorization was refused (${e.error}${e.error_description ? `: ${e.error_description.slice(0, 200)}` : ""})`,
        );
      throw authError(server, `the authorization response is not from this request (${(e as Error).message}); not using it`);
    }
    if (!callback.get("code")) throw authError(server, "the authorization response carries no code");
    const grant = { grant_type: "authorization_code", callback, redirectUri: interactive.redirectUri, verifier } as const;
    return this.grant(() => requestToken(this.fetchFn, d, client, grant, server, signal));
  }

  private async grant<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof TokenRequestError) throw authError(this.options.server, e.message.replace(/^MCP server '[^']*': /, ""));
      throw e;
    }
  }

  /** Refresh the access token (one refresh at a time); false when there is none to refresh with or it failed. */
  private refresh(): Promise<boolean> {
    const { store } = this.options;
    this.refreshing ??= (store.withLock ? store.withLock(this.key, () => this.refreshOnce()) : this.refreshOnce()).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** The refresh itself, under the store's lock when it has one: another process may have just refreshed. */
  private async refreshOnce(): Promise<boolean> {
    const held = this.tokens;
    if (!held?.refreshToken) return false;
    const stored = this.options.store.withLock ? await this.options.store.getTokens(this.key) : undefined;
    if (
      stored &&
      stored.accessToken !== held.accessToken &&
      (stored.expiresAt === undefined || stored.expiresAt - Date.now() >= REFRESH_MARGIN_MS)
    ) {
      this.tokens = stored;
      this.logger.info("mcp.oauth.refreshed", { by: "another process" });
      return true;
    }
    // The newest refresh token: another process's refresh may have rotated it.
    const t = stored?.refreshToken ? stored : held;
    const refreshToken = (t.refreshToken ?? held.refreshToken) as string;
    try {
      const d = await this.discovery(undefined);
      const client = await resolveClient(
        this.fetchFn,
        d,
        this.options.settings,
        this.options.store,
        this.options.interactive?.redirectUri,
        this.options.server,
      );
      const fresh = await requestToken(
        this.fetchFn,
        d,
        client,
        { grant_type: "refresh_token", fields: { refresh_token: refreshToken } },
        this.options.server,
      );
      // RFC 6749 §6: the server may keep the refresh token (and scope) unchanged.
      await this.adopt({
        ...fresh,
        refreshToken: fresh.refreshToken || refreshToken,
        scope: (fresh.scope ?? t.scope) || undefined,
      });
      this.logger.info("mcp.oauth.refreshed", {});
      return true;
    } catch (e) {
      this.logger.warn("mcp.oauth.refresh_failed", { error: e instanceof TokenRequestError ? e.error : (e as Error).message });
      if (e instanceof TokenRequestError && e.error === "invalid_grant") await this.adopt(undefined);
      return false;
    }
  }

  private async adopt(tokens: StoredTokens | undefined): Promise<void> {
    this.tokens = tokens;
    await this.options.store.setTokens(this.key, tokens);
  }
}
