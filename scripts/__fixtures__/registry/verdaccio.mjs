// A private npm registry for the registry test: Verdaccio (from npm, run by Node) on 127.0.0.1, a port the
// kernel picks, storage and users in DIR, no uplinks (it serves only what is published to it).
// Prints one JSON line {"port":N} once listening; stops on SIGTERM.
//
//   node verdaccio.mjs DIR
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runServer } from "verdaccio";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: node verdaccio.mjs DIR\n");
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
const configPath = join(dir, "config.yaml");
writeFileSync(
  configPath,
  [
    `storage: ${JSON.stringify(join(dir, "storage"))}`,
    "auth:",
    "  htpasswd:",
    `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
    "uplinks: {}",
    "packages:",
    "  '**':",
    "    access: $all",
    "    publish: $authenticated",
    // The per-platform CLI packages hold a ~100 MB binary.
    "max_body_size: 1gb",
    "log: { type: stdout, format: json, level: warn }",
    "",
  ].join("\n"),
);
const server = await runServer(configPath);
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.once("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
