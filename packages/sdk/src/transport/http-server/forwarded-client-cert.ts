/**
 * The principal of a client certificate a service mesh verified and forwarded in `X-Forwarded-Client-Cert`
 * (Envoy's format, used by Istio: elements separated by `,`, each `Key=value` pairs separated by `;`, values
 * double-quoted when they hold those characters — e.g. `By=spiffe://…;Hash=…;Subject="CN=alice,O=ops";
 * URI=spiffe://cluster.local/ns/agents/sa/caller`). The last element is the certificate the proxy next to us
 * verified. Only called for requests from a configured proxy (behind-proxy.ts).
 *
 * The principal is the certificate's subject as Envoy writes it (RFC 2253/4514 form, the form agentd's own
 * mutual TLS names a subject), else its URI SAN (a mesh identity such as a SPIFFE id), else its first DNS SAN.
 */
/** The principal (without the `mtls:` scheme) of the forwarded certificate, or undefined when it names none. */
export function principalOfForwardedCert(header: string): string | undefined {
  const last = splitOutsideQuotes(header, ",").at(-1);
  if (!last) return undefined;
  const fields = new Map<string, string>();
  for (const pair of splitOutsideQuotes(last, ";")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).trim().toLowerCase();
    // The first of a repeated key (URI and DNS may repeat): the certificate's first SAN of that kind.
    if (!fields.has(key)) fields.set(key, unquote(pair.slice(eq + 1).trim()));
  }
  const principal = subjectPrincipal(fields.get("subject")) ?? fields.get("uri") ?? fields.get("dns");
  // Control characters never become part of a principal (it is logged and compared as configured text).
  return principal && !/[\u0000-\u001f\u007f]/.test(principal) && principal.length <= 1024 ? principal : undefined;
}

/**
 * The principal a subject DN names. The one place a forwarded subject is mapped: agentd's own mutual TLS
 * names a certificate's subject in the same one-line DN form, so an operator writes `mtls:CN=alice,O=ops`
 * for either.
 */
export function subjectPrincipal(subject: string | undefined): string | undefined {
  return subject?.trim() ? subject.trim() : undefined;
}

/** Split on `sep` where it is not inside a double-quoted string (backslash escapes honoured). */
export function splitOutsideQuotes(text: string, sep: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted && ch === "\\" && i + 1 < text.length) {
      current += ch + text[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === sep && !quoted) {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

/** A value without its surrounding double quotes and with `\x` escapes undone. */
export function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1).replace(/\\(.)/g, "$1");
  return value;
}
