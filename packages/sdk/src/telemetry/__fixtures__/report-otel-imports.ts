/**
 * Test preload: a Bun runtime plugin that writes `otel-import <specifier>` to stderr for every module
 * resolved under `@opentelemetry/`, so a test can tell whether a process ever loaded OpenTelemetry.
 */
import { plugin } from "bun";

plugin({
  name: "report-otel-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]@opentelemetry[\\/]/ }, async (args) => {
      process.stderr.write(`otel-import ${args.path}\n`);
      return { contents: await Bun.file(args.path).text(), loader: args.path.endsWith(".ts") ? "ts" : "js" };
    });
  },
});
