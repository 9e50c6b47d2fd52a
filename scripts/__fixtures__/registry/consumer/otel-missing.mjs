// An agent from the installed SDK with `telemetry: "env"` while OTEL_EXPORTER_OTLP_ENDPOINT is set and
// @agentd/otel is not installed: the run goes on untraced; prints the result and the warnings logged.
import { createModel } from "@agentd/adapters";
import { createAgent } from "@agentd/sdk";
import { memoryLogger } from "@agentd/sdk/telemetry";
import { startFakeGateway } from "@agentd/testkit";

const gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "untraced" }] });
const logger = memoryLogger();
const agent = createAgent({
  model: createModel({ dialect: "openai", baseURL: gateway.url, apiKey: "sk-test", model: "scripted" }),
  telemetry: "env",
  logger,
});
try {
  const result = await agent.run("hi");
  console.log(
    JSON.stringify({
      text: result.text,
      warnings: logger.records.filter((r) => r.level === "warn").map((r) => `${r.event}: ${r.message}`),
    }),
  );
} finally {
  await agent.close();
  await gateway.close();
}
