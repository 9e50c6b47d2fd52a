/**
 * The console's embedded assets (packages/sdk/src/agent/console/assets.generated.ts) are what
 * scripts/build-console.ts makes from ./ui today, and stay small.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { CONSOLE_APP_JS, CONSOLE_CSS, CONSOLE_HTML } from "../packages/sdk/src/agent/console/assets.generated.ts";
import { buildConsoleAssets, GENERATED } from "./build-console.ts";

test("the embedded console assets are up to date with their sources (run bun scripts/build-console.ts)", async () => {
  expect(readFileSync(GENERATED, "utf8")).toBe(await buildConsoleAssets());
}, 30_000);

test("the console is a few tens of KB: page, stylesheet and script under 64 KiB together", () => {
  const bytes = [CONSOLE_HTML, CONSOLE_CSS, CONSOLE_APP_JS].reduce((n, s) => n + Buffer.byteLength(s), 0);
  expect(bytes).toBeLessThan(64 * 1024);
  // No inline script or style the CSP would refuse, and nothing fetched from elsewhere.
  expect(CONSOLE_HTML).not.toMatch(/<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=/i);
  expect(CONSOLE_HTML + CONSOLE_APP_JS + CONSOLE_CSS).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
});
