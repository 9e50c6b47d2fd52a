/** The A2A client's push receiver on a real loopback listener: bounds on what a remote agent may POST to it. */
import { afterEach, expect, test } from "bun:test";
import { MAX_JSON_DEPTH } from "../../wire/json-depth.ts";
import { type PushReceiver, startPushReceiver } from "./push-receiver.ts";

let receiver: PushReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

test("a notification nested deeper than the server side's limit is refused with 400 and never queued; a shallow one is taken", async () => {
  const refused: unknown[] = [];
  receiver = await startPushReceiver({
    logger: { warn: (event: string, fields: unknown) => refused.push({ event, fields }) } as never,
  });
  const hook = receiver.register();
  const post = (body: string) =>
    fetch(hook.url, { method: "POST", headers: { "content-type": "application/json", "x-a2a-notification-token": hook.token }, body });
  const task = (metadata: string) =>
    `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"},"metadata":{"deep":${metadata}}}}`;
  // 50,000 levels: the body is ~100 KB, well inside the receiver's 1 MiB bound.
  const deep = await post(task(`${"[".repeat(50_000)}${"]".repeat(50_000)}`));
  expect(deep.status).toBe(400);
  expect(refused).toContainEqual({
    event: "a2a.push.refused",
    fields: { status: 400, reason: `JSON nested more than ${MAX_JSON_DEPTH} levels deep is refused` },
  });
  expect(await hook.next(50, new AbortController().signal)).toBeUndefined();
  const shallow = await post(task(`${"[".repeat(10)}${"]".repeat(10)}`));
  expect(shallow.status).toBe(200);
  expect(await hook.next(5_000, new AbortController().signal)).toMatchObject({ task: { id: "t1" } });
});
