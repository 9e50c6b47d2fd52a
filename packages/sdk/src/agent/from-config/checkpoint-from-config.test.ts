/** The checkpoint's settings from the config: a switch without its store is refused, never ignored. */
import { expect, test } from "bun:test";
import { parseConfig } from "../../config/index.ts";
import { nullLogger } from "../../log.ts";
import { checkpointFromConfig } from "./checkpoint-from-config.ts";

test("a checkpoint switch without its store, or a store without the switch, is refused with one clear line", () => {
  expect(() => checkpointFromConfig(parseConfig({ capabilities: { checkpoint: true } }, {}), nullLogger)).toThrow(
    "capabilities.checkpoint needs a store",
  );
  const store = { command: "agentd", args: ["store", "--dir", "/tmp/x"] };
  expect(() => checkpointFromConfig(parseConfig({ durability: { checkpoint: { store } } }, {}), nullLogger)).toThrow(
    "capabilities.checkpoint is not true",
  );
  expect(checkpointFromConfig(parseConfig({ capabilities: { checkpoint: false } }, {}), nullLogger)).toBeUndefined();
  expect(
    checkpointFromConfig(
      parseConfig({ capabilities: { checkpoint: true }, durability: { checkpoint: { store, identity: "pod-0" } } }, {}),
      nullLogger,
    )?.key,
  ).toBe("checkpoints/pod-0");
});
