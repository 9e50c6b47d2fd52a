/**
 * The link from a run's trace id to the OTLP backend's page for it (`telemetry.traceUrl`, e.g.
 * `https://jaeger.example.com/trace/{traceId}`). The template is checked when the config is read (an http(s)
 * URL holding `{traceId}`); the id is a W3C trace id (32 lowercase hex digits) or no link is made, and it is
 * URL-encoded where it goes, so nothing a run reports can change where the link leads.
 */

const TRACE_ID = /^[0-9a-f]{32}$/;

/** The trace page of `traceId` at `template`, or undefined without a template, a valid id, or an http(s) result. */
export function traceLink(template: string | undefined, traceId: unknown): string | undefined {
  if (!template || typeof traceId !== "string" || !TRACE_ID.test(traceId) || /^0+$/.test(traceId)) return undefined;
  const href = template.replaceAll("{traceId}", encodeURIComponent(traceId));
  try {
    const url = new URL(href);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
