/**
 * An {@link HttpAuthProvider} that loads the OAuth implementation (`oauth/`) on first use, so servers without
 * an `oauth` block, and runs without such servers, never load it.
 */
import type { Logger } from "../../log.ts";
import type { AuthChallenge, HttpAuthProvider } from "./auth-provider.ts";
import type { OAuthConfig } from "./oauth/settings.ts";
import type { AuthorizationCodeHandler, TokenStore } from "./oauth/index.ts";

/** Options of {@link lazyOAuthProvider}. */
export interface LazyOAuthOptions {
  server: string;
  url: URL | string;
  config: OAuthConfig;
  /** Default: the token file (`AGENTD_OAUTH_STORE`, encrypted with `AGENTD_OAUTH_STORE_KEY` when set). */
  store?: TokenStore;
  interactive?: AuthorizationCodeHandler;
  fetch?: typeof fetch;
  logger?: Logger;
}

/** OAuth for one server, loaded when the transport first asks for a token. */
export function lazyOAuthProvider(options: LazyOAuthOptions): HttpAuthProvider {
  let real: Promise<HttpAuthProvider> | undefined;
  const load = () =>
    (real ??= (async () => {
      const m = await import("./oauth/index.ts");
      return new m.OAuthClientProvider({
        server: options.server,
        url: new URL(options.url),
        settings: m.resolveOAuthSettings(options.server, options.config),
        store: options.store ?? (await m.defaultTokenStore()),
        interactive: options.interactive,
        fetch: options.fetch,
        logger: options.logger,
      });
    })());
  return {
    token: async (signal?: AbortSignal) => (await load()).token(signal),
    challenge: async (c: AuthChallenge, signal?: AbortSignal) => (await load()).challenge(c, signal),
  };
}
