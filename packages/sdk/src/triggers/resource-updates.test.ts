import { describe, expect, test } from "bun:test";
import { FakeResourceClient } from "./__fixtures__/trigger-harness.ts";
import { watchResourceUpdates } from "./resource-updates.ts";
import { concernsResource } from "./subscription-source.ts";

const WATCHED = [
  "file:///data",
  "file:///data/",
  "file:///data/inbox.md",
  "file:///database",
  "db://t?x=1",
  "db://t",
  "mem://a#b",
  "mem://a",
  "x",
  "/",
];
const UPDATES = [
  ...WATCHED,
  "file:///data/a.md",
  "file:///data/inbox.md#section",
  "file:///data/inbox.md?rev=2",
  "file:///databases",
  "file:///dat",
  "db://t?x=1&y=2",
  "db://t#frag",
  "mem://a#b/c",
  "mem://ab",
  "x/y",
  "xy",
  "//",
  "",
];

describe("watchResourceUpdates", () => {
  test("a notification reaches exactly the watches concernsResource accepts", () => {
    const client = new FakeResourceClient();
    const heard: string[] = [];
    const offs = WATCHED.map((uri) => watchResourceUpdates(client, uri, () => heard.push(uri)));
    for (const updated of UPDATES) {
      heard.length = 0;
      client.notify(updated);
      const expected = WATCHED.filter((uri) => concernsResource(uri, updated));
      expect({ updated, heard: heard.toSorted() }).toEqual({ updated, heard: expected.toSorted() });
    }
    for (const off of offs) off();
  });

  test("one client listener for every watch; removed with the last one; watches of one URI are independent", () => {
    const client = new FakeResourceClient();
    let a = 0;
    let b = 0;
    const offA = watchResourceUpdates(client, "file:///x", () => a++);
    const offB = watchResourceUpdates(client, "file:///x", () => b++);
    const offC = watchResourceUpdates(client, "file:///y", () => {});
    expect(client.listeners).toBe(1);
    client.notify("file:///x");
    expect([a, b]).toEqual([1, 1]);
    offA();
    offA(); // idempotent: does not remove B
    client.notify("file:///x");
    expect([a, b]).toEqual([1, 2]);
    offB();
    offC();
    expect(client.listeners).toBe(0);
    // A new watch after the last one stopped registers again.
    const offD = watchResourceUpdates(client, "file:///x", () => a++);
    client.notify("file:///x/child");
    expect([a, b]).toEqual([2, 2]);
    offD();
    expect(client.listeners).toBe(0);
  });

  test("a watch stopped by another watch's callback during a dispatch does not break it", () => {
    const client = new FakeResourceClient();
    const heard: string[] = [];
    let offSecond: () => void = () => {};
    const offFirst = watchResourceUpdates(client, "file:///x", () => {
      heard.push("first");
      offSecond();
    });
    offSecond = watchResourceUpdates(client, "file:///x", () => heard.push("second"));
    client.notify("file:///x");
    client.notify("file:///x");
    // The first dispatch had both due; the second has only the first.
    expect(heard).toEqual(["first", "second", "first"]);
    offFirst();
    expect(client.listeners).toBe(0);
  });
});
