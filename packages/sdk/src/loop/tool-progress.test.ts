import { expect, test } from "bun:test";
import type { RunEvent } from "./events.ts";
import { toolProgressReporter } from "./tool-progress.ts";

const call = { runId: "r", turn: 1, toolCallId: "c1", name: "slow_work", qualifiedName: "slow/work" };

test("a burst of progress is one event at once and the latest one when the interval has passed; nothing after end()", async () => {
  const events: RunEvent[] = [];
  let trailing!: () => void;
  const second = new Promise<void>((r) => (trailing = r));
  const reporter = toolProgressReporter(
    (e) => {
      events.push(e);
      if (events.length === 2) trailing();
    },
    call,
    50,
  );
  for (let i = 1; i <= 5; i++) reporter.report({ progress: i, total: 5, message: `step ${i}` });
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ type: "tool-call-progress", ...call, progress: 1, total: 5, message: "step 1" });
  await second;
  expect(events[1]).toMatchObject({ progress: 5, message: "step 5" });
  reporter.report({ progress: 6 });
  reporter.end();
  reporter.report({ progress: 7 });
  await Bun.sleep(120); // longer than the interval: a trailing event would have come by now
  expect(events.map((e) => (e as { progress: number }).progress)).toEqual([1, 5]);
});

test("a tool's long message is cut for telemetry", () => {
  const events: RunEvent[] = [];
  toolProgressReporter((e) => events.push(e), call).report({ progress: 1, message: "x".repeat(1000) });
  expect((events[0] as { message: string }).message.length).toBeLessThanOrEqual(201);
});
