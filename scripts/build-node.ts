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
        // Subpath imports (`@agentd/sdk/mcp`) point at TypeScript sources; the root entry exports the same
        // names, so Node gets the bundled root instead.
        name: "sdk-subpaths-to-root",
        setup(build) {
          build.onResolve({ filter: /^@agentd\/sdk\/.+/ }, () => ({ path: "@agentd/sdk", external: true }));
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
