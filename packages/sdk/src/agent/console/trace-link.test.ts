/** `telemetry.traceUrl`: the template is checked when the config is read; the link takes only a W3C trace id, encoded. */
import { expect, test } from "bun:test";
import { parseConfig } from "../../config/load.ts";
import { traceLink } from "./trace-link.ts";

const ID = "4bf92f3577b34da6a3ce929d0e0e4736";

test("a valid trace id fills the template; anything else links nowhere", () => {
  expect(traceLink("https://jaeger.example.com/trace/{traceId}", ID)).toBe(`https://jaeger.example.com/trace/${ID}`);
  expect(traceLink("https://grafana.example.com/explore?traceId={traceId}&x={traceId}", ID)).toBe(
    `https://grafana.example.com/explore?traceId=${ID}&x=${ID}`,
  );
  for (const bad of ["", "0".repeat(32), ID.toUpperCase(), `${ID}/../x`, "javascript:alert(1)", 42, undefined])
    expect(traceLink("https://jaeger.example.com/trace/{traceId}", bad)).toBeUndefined();
  expect(traceLink(undefined, ID)).toBeUndefined();
});

test("the config takes an http(s) URL template holding {traceId}, and refuses others with one line", () => {
  expect(parseConfig({ telemetry: { traceUrl: "https://jaeger.example.com/trace/{traceId}" } }, {}).telemetry?.traceUrl).toBe(
    "https://jaeger.example.com/trace/{traceId}",
  );
  for (const bad of ["https://jaeger.example.com/trace/", "javascript:{traceId}", "ftp://x/{traceId}", "jaeger/{traceId}"]) {
    let message = "";
    try {
      parseConfig({ telemetry: { traceUrl: bad } }, {});
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("telemetry.traceUrl");
    expect(message).toContain("{traceId}");
  }
});
