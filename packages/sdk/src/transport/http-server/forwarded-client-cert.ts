/**
 * The principal of a client certificate a service mesh verified and forwarded in `X-Forwarded-Client-Cert`
 * (Envoy's format, used by Istio: elements separated by `,`, each `Key=value` pairs separated by `;`, values
 * double-quoted when they hold those characters — e.g. `By=spiffe://…;Hash=…;Subject="CN=alice,O=ops";
 * URI=spiffe://cluster.local/ns/agents/sa/caller`). Only called for requests from a configured proxy
 * (behind-proxy.ts).
 *
 * Which element is the client's: the last one. A proxy appends the certificate it verified after whatever
 * arrived (Envoy's `APPEND_FORWARD`; `SANITIZE_SET` sends that one element alone), so the last element is the
 * one the proxy next to us wrote, and every element before it is text the client could have sent. The header
 * is read strictly (forwarded-list.ts): a client cannot end its own text with an open quote and swallow the
 * proxy's element. A malformed header is reported, and the request refused, never guessed at.
 *
 * The principal is the certificate's subject as Envoy writes it (RFC 2253/4514 form, the form agentd's own
 * mutual TLS names a subject), else its URI SAN (a mesh identity such as a SPIFFE id), else its first DNS SAN.
 */
import { parseForwardedList } from "./forwarded-list.ts";

/** What a forwarded certificate header says: its principal (none when it names none), or why it is malformed. */
export type ForwardedCert = { ok: true; principal: string | undefined } | { ok: false; error: string };

// Envoy writes one `URI=` / `DNS=` pair per subject alternative name; every other key names one value.
const REPEATABLE: ReadonlySet<string> = new Set(["uri", "dns"]);

/** The principal (without the `mtls:` scheme) of the forwarded certificate — the header's last element. */
export function readForwardedCert(header: string): ForwardedCert {
  const parsed = parseForwardedList(header, REPEATABLE);
  if (!parsed.ok) return { ok: false, error: `malformed X-Forwarded-Client-Cert header: ${parsed.error}` };
  const last = parsed.elements.at(-1)!;
  // The first of a repeated key: the certificate's first SAN of that kind.
  const first = (key: string) => last.get(key)?.[0] || undefined;
  const principal = subjectPrincipal(first("subject")) ?? first("uri") ?? first("dns");
  // Control characters never become part of a principal (it is logged and compared as configured text).
  const usable = principal && !/[\u0000-\u001f\u007f]/.test(principal) && principal.length <= 1024;
  return { ok: true, principal: usable ? principal : undefined };
}

/**
 * The principal a subject DN names. The one place a forwarded subject is mapped: agentd's own mutual TLS
 * names a certificate's subject in the same one-line DN form, so an operator writes `mtls:CN=alice,O=ops`
 * for either.
 */
export function subjectPrincipal(subject: string | undefined): string | undefined {
  return subject?.trim() ? subject.trim() : undefined;
}
