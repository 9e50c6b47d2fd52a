/**
 * Test fixture, bundled for Node by `push-receiver-node.test.ts` and run by `node`: the A2A client's push
 * receiver under Node. Registers one webhook, posts to it with a wrong token and with the right one, and
 * prints one JSON report.
 */
import { startPushReceiver } from "../push-receiver.ts";

const receiver = await startPushReceiver();
const hook = receiver.register();
const event = JSON.stringify({ statusUpdate: { taskId: "t-1", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } });
const send = (token: string) => fetch(hook.url, { method: "POST", headers: { "x-a2a-notification-token": token }, body: event });
const wrong = (await send(`${hook.token}x`)).status;
const right = (await send(hook.token)).status;
const got = await hook.next(5000, new AbortController().signal);
await receiver.close();
process.stdout.write(
  `${JSON.stringify({ runtime: typeof Bun === "undefined" ? "node" : "bun", loopback: new URL(hook.url).hostname, wrong, right, got })}\n`,
);
