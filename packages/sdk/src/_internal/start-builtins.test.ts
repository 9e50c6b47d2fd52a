/**
 * What an idle MCP server and a one-shot run load must not pull in Node built-ins they call only on some
 * paths: under Bun each is a JavaScript module of the runtime, loaded at start when imported at a module's
 * top (`node:crypto` ~2 ms of CPU and ~0.5 MB, `node:http` more). Such uses go through
 * `_internal/node-builtins.ts` (loaded on first call) or `_internal/hash.ts` (`Bun.CryptoHasher`).
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

/** Built-ins the server entries and `createAgent` reach only on paths a plain run or idle server never takes. */
const ON_FIRST_USE = ["node:crypto", "node:child_process", "node:url", "node:http", "node:https", "node:net", "node:tls"];

test("no module the MCP entries or createAgent load imports crypto, child_process, url, http, https, net or tls at its top", async () => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "loaded-builtins.ts")], {
    stdout: "pipe",
    stderr: "pipe",
    env: process.env,
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  const found = JSON.parse(out) as Record<string, string[]>;
  const eager = Object.entries(found).flatMap(([file, builtins]) =>
    builtins.filter((b) => ON_FIRST_USE.includes(b)).map((b) => `${file} → ${b}`),
  );
  expect(eager).toEqual([]);
  // The check reads real imports (not vacuous): node:fs is imported at the top of modules these load.
  expect(Object.values(found).flat()).toContain("node:fs");
});
