/**
 * Build the Node.js (ESM) entry points of the publishable packages: `packages/<pkg>/dist/index.js`.
 * Bun and the workspace use the TypeScript sources directly (the `bun` export condition); Node resolves
 * the `import` condition to these bundles. Dependencies stay external (installed beside the package).
 *
 * Usage: bun scripts/build-node.ts
 */
import { resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const packages = [
  { name: "sdk", external: ["valibot", "croner"] },
  { name: "adapters", external: ["@agentd/sdk"] },
  { name: "testkit", external: ["@agentd/sdk"] },
];

for (const pkg of packages) {
  const dir = resolve(root, "packages", pkg.name);
  const result = await Bun.build({
    entrypoints: [resolve(dir, "src/index.ts")],
    outdir: resolve(dir, "dist"),
    target: "node",
    format: "esm",
    external: pkg.external,
    sourcemap: "linked",
    plugins: [
      {
        // Subpath imports (`@agentd/sdk/mcp`) point at TypeScript sources; the names the testkit takes from
        // them are on the curated root too, so Node gets the bundled root instead. `@agentd/sdk/model` (the
        // adapters' only import) is a leaf without state: it is bundled in (its errors are recognised across
        // copies by `isInstance`).
        name: "sdk-subpaths-to-root",
        setup(build) {
          build.onResolve({ filter: /^@agentd\/sdk\/model$/ }, () => ({ path: resolve(root, "packages/sdk/src/model/index.ts") }));
          build.onResolve({ filter: /^@agentd\/sdk\/(?!model$).+/ }, () => ({ path: "@agentd/sdk", external: true }));
        },
      },
    ],
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
  console.error(`built packages/${pkg.name}/dist/index.js`);
}
