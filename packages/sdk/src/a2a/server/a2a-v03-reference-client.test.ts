/**
 * The v0.3 reference client itself (`@a2a-js/sdk` 0.3.14, installed as `a2a-sdk-0-3`) over HTTP+JSON: its
 * non-blocking send leaves `configuration.blocking` out (proto3 JSON omits a false boolean), and the 0.3
 * reference server reads a missing field as non-blocking. So does agentd: the send answers at once with the
 * task still working, while a blocking send (the field present and true) waits for the answer.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { ClientFactory, ClientFactoryOptions, RestTransportFactory } from "a2a-sdk-0-3/client";
import { echo, gate, serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

setDefaultTimeout(30_000);
const started: ServedAgent[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
});

/** The 0.3 reference client over HTTP+JSON; `polling` makes its sends non-blocking. */
function referenceClient(base: string, polling: boolean) {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new RestTransportFactory()],
      preferredTransports: ["HTTP+JSON"],
      clientConfig: { polling },
    }),
  );
  return factory.createFromUrl(base);
}

const message = (text: string) => ({
  kind: "message" as const,
  messageId: crypto.randomUUID(),
  role: "user" as const,
  parts: [{ kind: "text" as const, text }],
});

test("a non-blocking send from the 0.3 reference client (no blocking field) answers at once with the task working", async () => {
  const held = gate(echo);
  const s = await serveA2aAgent({ steps: [held.step] });
  started.push(s);
  const client = await referenceClient(s.base, true);
  const sent = await client.sendMessage({ message: message("hello") });
  expect(sent.kind).toBe("task");
  const task = sent as { id: string; status: { state: string } };
  expect(["submitted", "working"]).toContain(task.status.state);
  await held.entered;
  // Subscribed while the model is held (its first event is the task as it stands), then released: the task
  // finishes on its own and the subscription sees it complete.
  const events = client.resubscribeTask({ id: task.id })[Symbol.asyncIterator]();
  const first = await events.next();
  expect(first.done).toBe(false);
  held.release();
  let state = "";
  for (let e = first; !e.done; e = await events.next()) {
    const event = e.value;
    if (event.kind === "status-update" || event.kind === "task") state = event.status.state;
    if (state === "completed") break;
  }
  await events.return?.();
  expect(state).toBe("completed");
});

test("a blocking send from the 0.3 reference client waits for the answer", async () => {
  const s = await serveA2aAgent();
  started.push(s);
  const client = await referenceClient(s.base, false);
  const sent = (await client.sendMessage({ message: message("hi") })) as {
    status: { state: string };
    artifacts?: Array<{ parts: Array<{ text?: string }> }>;
  };
  expect(sent.status.state).toBe("completed");
  expect(sent.artifacts?.[0]?.parts[0]?.text).toBe("echo: hi");
});
