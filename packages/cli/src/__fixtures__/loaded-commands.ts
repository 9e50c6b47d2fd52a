/**
 * Runs `runCli(argv)` (argv from the command line, output discarded) in a fresh process and prints, as
 * JSON, which command modules that loaded (commands/index.test.ts).
 */
import { runCli } from "../cli.ts";

const quiet = { stdout: () => {}, stderr: () => {} };
const code = await runCli(process.argv.slice(2), quiet);
const loaded = Object.keys(require.cache)
  .filter((path) => path.includes("/cli/src/commands/"))
  .map((path) => path.slice(path.lastIndexOf("/") + 1))
  .sort();
process.stdout.write(`${JSON.stringify({ code, loaded })}\n`);
