/**
 * Test fixture, run as its own process: one agentd OAuth client refreshing a stored login.
 * `bun refresh-process.ts STORE_FILE MCP_URL`: loads the stored tokens, prints `loaded`, waits for a line
 * on stdin (so two processes both hold the old token before either refreshes), then asks for a token
 * (the stored one has expired, so this refreshes) and prints `{"token": …}`.
 */
import { OAuthClientProvider } from "../provider.ts";
import { FileTokenStore, type StoredTokens } from "../token-store.ts";

const [path, url] = process.argv.slice(2) as [string, string];
const go = new Promise<void>((resolve) => {
  process.stdin.once("data", () => resolve());
});

/** The file store, its first read (the provider loading its login) held until the test says go. */
class GatedStore extends FileTokenStore {
  private first = true;
  override async getTokens(key: string): Promise<StoredTokens | undefined> {
    const t = await super.getTokens(key);
    if (this.first) {
      this.first = false;
      process.stdout.write("loaded\n");
      await go;
    }
    return t;
  }
}

const provider = new OAuthClientProvider({ server: "api", url: new URL(url), settings: { clientId: "cli" }, store: new GatedStore(path) });
const token = await provider.token();
process.stdout.write(`${JSON.stringify({ token })}\n`);
