/**
 * deploy/ in CI: every overlay renders with `kubectl kustomize` (deploy/render.ts; skipped without kubectl),
 * every object validates against the official Kubernetes OpenAPI schemas (`kubernetes-models` 5.1.0,
 * generated from the upstream OpenAPI spec of Kubernetes 1.34: it knows 1.34 fields such as `fileKeyRef`),
 * and our own policy holds: PodSecurity `restricted` pod specs, read-only root, probes on the servers, no
 * `latest` tags, resources set, the CronJob's exit-code policy equal to packages/cli/src/exit-codes.ts, each
 * ConfigMap a valid agentd configuration whose durability points at the store, every variable it expands
 * set in every agentd container, no state on an `emptyDir`, the config mounted so it can be reloaded, and
 * network policies letting only agentd reach the store and only the store reach Redis.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { triggerSpecsFromConfig } from "../packages/sdk/src/triggers/runner/trigger-specs.ts";
import { parseConfig } from "../packages/sdk/src/config/load.ts";
import { jobStoreFromConfig } from "../packages/sdk/src/agent/from-config/job-store-from-config.ts";
import { nullLogger } from "../packages/sdk/src/log.ts";
import { EXIT } from "../packages/cli/src/exit-codes.ts";
import { DEPLOY_DIR, type K8sObject, kubectl, render } from "./render.ts";

const OVERLAYS = ["cronjob", "reactive", "served", "ingress"] as const;
const NO_KUBECTL = kubectl() === undefined;
const rendered = (NO_KUBECTL ? {} : Object.fromEntries(OVERLAYS.map((o) => [o, render(join(DEPLOY_DIR, "overlays", o))]))) as Record<
  (typeof OVERLAYS)[number],
  K8sObject[]
>;

/** The kubernetes-models class for an object's apiVersion and kind. */
async function modelOf(o: K8sObject): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
  const mod = await import(group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`);
  const model = mod[o.kind];
  if (!model) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  return model;
}

const find = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind) as any[];
const named = (objs: K8sObject[], kind: string, name: string) => find(objs, kind).find((o) => o.metadata.name === name);
/** Every workload's pod template, with the workload. */
const templates = (objs: K8sObject[]) => [
  ...find(objs, "Deployment").map((d) => ({ workload: d, template: d.spec.template })),
  ...find(objs, "StatefulSet").map((s) => ({ workload: s, template: s.spec.template })),
  ...find(objs, "CronJob").map((c) => ({ workload: c, template: c.spec.jobTemplate.spec.template })),
];
/** The agentd containers (the agent itself, not the store or Redis) of an overlay. */
const agentContainers = (objs: K8sObject[]) =>
  templates(objs)
    .filter(({ template }) => template.metadata.labels["app.kubernetes.io/name"] === "agentd")
    .flatMap(({ template }) => template.spec.containers.map((c: any) => ({ c, spec: template.spec })));
const labelsMatch = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);
const configOf = (objs: K8sObject[]) => find(objs, "ConfigMap")[0].data["agentd.json"] as string;
/** `${NAME}` references in a configuration text. */
const expanded = (text: string) => [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);

describe.skipIf(NO_KUBECTL).each(OVERLAYS)("deploy/overlays/%s", (overlay) => {
  const objs = rendered[overlay] ?? [];

  test("every object validates against the Kubernetes OpenAPI schema", async () => {
    expect(objs.length).toBeGreaterThan(8);
    for (const o of objs) {
      const Model = await modelOf(o);
      expect(() => new Model(o).validate()).not.toThrow();
    }
  });

  test("pod specs meet PodSecurity restricted, run read-only and non-root, with resources and pinned images", () => {
    const specs = templates(objs).map((t) => t.template.spec);
    expect(specs.length).toBe(3); // agentd, the store, Redis
    for (const spec of specs) {
      expect(spec.securityContext.runAsNonRoot).toBe(true);
      expect(spec.securityContext.runAsUser).not.toBe(0);
      expect(spec.securityContext.seccompProfile.type).toBe("RuntimeDefault");
      expect(spec.automountServiceAccountToken).toBe(false);
      expect(spec.hostNetwork ?? false).toBe(false);
      for (const v of spec.volumes ?? []) expect(v.hostPath).toBeUndefined();
      for (const c of spec.containers) {
        expect(c.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        expect(c.securityContext.privileged ?? false).toBe(false);
        expect(c.image).toMatch(/^[^:]+:(?!latest$)[\w.-]+$/);
        expect(c.resources.requests.cpu).toBeDefined();
        expect(c.resources.requests.memory).toBeDefined();
        expect(c.resources.limits.memory).toBeDefined();
      }
    }
  });

  test("no state on an emptyDir: every writable mount is a PersistentVolumeClaim", () => {
    for (const { workload, template } of templates(objs)) {
      for (const v of template.spec.volumes ?? []) expect(v.emptyDir).toBeUndefined();
      const claims = new Set((workload.spec.volumeClaimTemplates ?? []).map((t: any) => t.metadata.name));
      for (const c of template.spec.containers)
        for (const m of c.volumeMounts ?? []) if (!m.readOnly) expect(claims.has(m.name)).toBe(true);
    }
  });

  test("the ConfigMap holds a valid agentd configuration whose durability is the store, with no secret in it", () => {
    const text = configOf(objs);
    const env = Object.fromEntries(expanded(text).map((n) => [n, `value-of-${n}`]));
    // Parsed and its triggers planned the way agentd does at start-up (cron version rules included).
    const config = parseConfig(JSON.parse(text), env, "agentd.json");
    expect(() => triggerSpecsFromConfig(config)).not.toThrow();
    expect(text).not.toMatch(/sk-|Bearer [A-Za-z0-9]{8,}/);
    const store = named(objs, "Service", "agentd-store");
    const url = new URL((config.durability!.store as { url: string }).url);
    expect(url.hostname).toBe(store.metadata.name);
    expect(Number(url.port)).toBe(store.spec.ports[0].port);
    expect(url.protocol).toBe("https:");
    expect(config.capabilities?.checkpoint).toBe(true);
    // One store for everything durable: no part names a store of its own.
    for (const part of ["claims", "checkpoint", "oauthTokens", "schedules", "servedRuns"] as const)
      expect((config.durability?.[part] as { store?: unknown } | undefined)?.store).toBeUndefined();
    expect(config.durability?.claims?.holder).toBe("value-of-POD_NAME");
  });

  test("every variable the configuration expands is set in every agentd container; the store's CA is trusted", () => {
    const names = expanded(configOf(objs));
    expect(names).toContain("STORE_TOKEN");
    const agents = agentContainers(objs);
    expect(agents.length).toBe(1);
    for (const { c, spec } of agents) {
      for (const n of names) expect(c.env.some((e: any) => e.name === n)).toBe(true);
      expect(c.env.find((e: any) => e.name === "STORE_TOKEN").valueFrom.secretKeyRef).toEqual({ name: "agentd-store", key: "token" });
      const ca = c.env.find((e: any) => e.name === "NODE_EXTRA_CA_CERTS").value as string;
      const mount = c.volumeMounts.find((m: any) => ca.startsWith(`${m.mountPath}/`));
      expect(spec.volumes.find((v: any) => v.name === mount.name).secret.secretName).toBe("agentd-store-tls");
    }
  });

  test("the configuration is mounted as a directory (a ConfigMap update reaches the pod and is reloaded)", () => {
    for (const { c, spec } of agentContainers(objs)) {
      const configFile = (c.args as string[]).map((a) => a.replace(/^--config=/, "")).find((a) => a.endsWith("agentd.json"))!;
      const mount = c.volumeMounts.find((m: any) => configFile.startsWith(`${m.mountPath}/`));
      expect(mount.subPath).toBeUndefined();
      expect(spec.volumes.find((v: any) => v.name === mount.name).configMap.name).toBe("agentd-config");
    }
  });

  test("network policies: each pod is selected; only agentd reaches the store, only the store reaches Redis", () => {
    const policies = find(objs, "NetworkPolicy");
    for (const np of policies) expect(np.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    for (const { template } of templates(objs))
      expect(policies.filter((np) => labelsMatch(np.spec.podSelector.matchLabels, template.metadata.labels)).length).toBe(1);
    const store = named(objs, "NetworkPolicy", "agentd-store");
    const redis = named(objs, "NetworkPolicy", "agentd-redis");
    expect(store.spec.ingress).toEqual([
      { from: [{ podSelector: { matchLabels: { "app.kubernetes.io/name": "agentd" } } }], ports: [{ protocol: "TCP", port: 7700 }] },
    ]);
    expect(redis.spec.ingress).toEqual([
      { from: [{ podSelector: { matchLabels: { "app.kubernetes.io/name": "agentd-store" } } }], ports: [{ protocol: "TCP", port: 6379 }] },
    ]);
    expect(redis.spec.egress ?? []).toEqual([]);
    expect(store.spec.egress.some((r: any) => r.to?.[0]?.podSelector?.matchLabels?.["app.kubernetes.io/name"] === "agentd-redis")).toBe(
      true,
    );
    const agent = named(objs, "NetworkPolicy", "agentd");
    expect(
      agent.spec.egress.some(
        (r: any) => r.to?.[0]?.podSelector?.matchLabels?.["app.kubernetes.io/name"] === "agentd-store" && r.ports[0].port === 7700,
      ),
    ).toBe(true);
  });
});

describe.skipIf(NO_KUBECTL)("the store and its Redis", () => {
  const objs = rendered.served ?? [];
  const store = () => named(objs, "Deployment", "agentd-store");

  test("agentd store --redis over HTTPS with a bearer token, its Redis URL and token from the agentd-store Secret", () => {
    const c = store().spec.template.spec.containers[0];
    expect(c.args.slice(0, 2)).toEqual(["store", "--http=0.0.0.0:7700"]);
    expect(c.args).toContain("--tls-cert=/etc/agentd-store/tls/tls.crt");
    const secret = (name: string) => c.env.find((e: any) => e.name === name)?.valueFrom?.secretKeyRef;
    expect(secret("AGENT_STORE_REDIS")).toEqual({ name: "agentd-store", key: "redis-url" });
    expect(secret("AGENT_STORE_AUTH_TOKENS")).toEqual({ name: "agentd-store", key: "token" });
    expect(c.readinessProbe.httpGet).toMatchObject({ path: "/healthz", port: "https", scheme: "HTTPS" });
    expect(store().spec.replicas).toBeGreaterThan(1);
  });

  test("Redis: a StatefulSet whose data is on a PersistentVolumeClaim, append-only with fsync on every write, password required", () => {
    const redis = named(objs, "StatefulSet", "agentd-redis");
    const c = redis.spec.template.spec.containers[0];
    expect(redis.spec.volumeClaimTemplates[0].metadata.name).toBe(c.volumeMounts[0].name);
    expect(c.volumeMounts[0].mountPath).toBe("/data");
    const arg = (flag: string) => c.args[c.args.indexOf(flag) + 1];
    expect(arg("--dir")).toBe("/data");
    expect(arg("--appendonly")).toBe("yes");
    expect(arg("--appendfsync")).toBe("always");
    expect(arg("--requirepass")).toBe("$(REDIS_PASSWORD)");
  });

  test("the base renders without the Redis component (an existing Redis named by the Secret)", async () => {
    const base = render(join(DEPLOY_DIR, "base"));
    expect(find(base, "StatefulSet")).toEqual([]);
    expect(named(base, "Deployment", "agentd-store")).toBeDefined();
    for (const o of base) {
      const Model = await modelOf(o);
      expect(() => new Model(o).validate()).not.toThrow();
    }
  });
});

describe.skipIf(NO_KUBECTL)("the CronJob (one-shot shape)", () => {
  const cron = () => find(rendered.cronjob, "CronJob")[0];
  const job = () => cron().spec.jobTemplate.spec;
  const container = () => job().template.spec.containers[0];
  const rule = (action: string) =>
    job()
      .podFailurePolicy.rules.filter((r: any) => r.action === action && r.onExitCodes)
      .flatMap((r: any) => r.onExitCodes.values);

  test("maps agentd's exit codes: usage and budget fail the Job, upstream retries, SIGTERM is a disruption", () => {
    expect(rule("FailJob").sort()).toEqual([EXIT.usage, EXIT.budget].sort());
    expect(rule("Count")).toContain(EXIT.upstream);
    expect(rule("Count")).toContain(EXIT.runFailed);
    expect(rule("Ignore")).toEqual([EXIT.sigterm]);
    expect(
      job().podFailurePolicy.rules.some((r: any) => r.action === "Ignore" && r.onPodConditions?.[0]?.type === "DisruptionTarget"),
    ).toBe(true);
    for (const r of job().podFailurePolicy.rules) if (r.onExitCodes) expect(r.onExitCodes.containerName).toBe(container().name);
    expect(job().template.spec.restartPolicy).toBe("Never"); // podFailurePolicy requires it
    expect(job().backoffLimit).toBeGreaterThan(0);
  });

  test("runs once per schedule with a run id derived from the scheduled time", () => {
    expect(cron().spec.concurrencyPolicy).toBe("Forbid");
    expect(container().args.slice(0, 3)).toEqual(["run", "--mode", "once"]);
    const runId = container().env.find((e: any) => e.name === "RUN_ID");
    expect(runId.valueFrom.fieldRef.fieldPath).toBe("metadata.labels['batch.kubernetes.io/job-name']");
  });
});

describe.skipIf(NO_KUBECTL)("the served Deployment", () => {
  const deploy = () => named(rendered.served, "Deployment", "agentd");
  const spec = () => deploy().spec.template.spec;
  const c = () => spec().containers[0];
  const flag = (name: string) => (c().args as string[]).find((a) => a.startsWith(`--${name}=`))?.split("=")[1];

  test("probes: readiness on /readyz, liveness on /healthz, over HTTPS on the served port", () => {
    expect(c().readinessProbe.httpGet).toMatchObject({ path: "/readyz", port: "https", scheme: "HTTPS" });
    expect(c().livenessProbe.httpGet).toMatchObject({ path: "/healthz", port: "https", scheme: "HTTPS" });
    expect(flag("http")).toEndWith(`:${c().ports[0].containerPort}`);
  });

  test("the termination grace covers --grace plus the preStop pause", () => {
    const grace = Number(flag("grace")?.replace(/s$/, ""));
    expect(grace).toBeGreaterThan(0);
    expect(spec().terminationGracePeriodSeconds).toBeGreaterThan(grace + c().lifecycle.preStop.sleep.seconds);
  });

  test("TLS from a cert-manager Secret, the API key from a Secret named by apiKeyEnv", () => {
    expect(flag("tls-cert")).toBe("/etc/agentd/tls/tls.crt");
    expect(flag("tls-key")).toBe("/etc/agentd/tls/tls.key");
    expect(spec().volumes.find((v: any) => v.name === "tls").secret.secretName).toBe("agentd-tls");
    const keyEnv = JSON.parse(configOf(rendered.served)).model.apiKeyEnv;
    expect(c().env.find((e: any) => e.name === keyEnv)?.valueFrom?.secretKeyRef?.name).toBe("agentd-secrets");
  });

  test("replicas > 1, each named by its pod in claims (POD_NAME from the downward API)", () => {
    expect(deploy().spec.replicas).toBeGreaterThan(1);
    expect(c().env.find((e: any) => e.name === "POD_NAME").valueFrom.fieldRef.fieldPath).toBe("metadata.name");
  });
});

describe.skipIf(NO_KUBECTL)("the reactive StatefulSet", () => {
  const sts = () => named(rendered.reactive, "StatefulSet", "agentd");

  test("one replica with a stable name (claim holder and checkpoint identity survive restarts) and its triggers configured", () => {
    expect(sts().spec.replicas).toBe(1);
    expect(named(rendered.reactive, "Deployment", "agentd")).toBeUndefined();
    const config = JSON.parse(configOf(rendered.reactive));
    expect(config.triggers.schedules).toHaveLength(1);
    // Subscribing to an MCP server over HTTP needs reactivity over HTTP (off by default).
    expect(config.capabilities.httpReactivity).toBe(true);
    expect(named(rendered.reactive, "Service", sts().spec.serviceName).spec.clusterIP).toBe("None");
  });

  test("the cron job store is in the store (durability.store), so the pod keeps no state of its own", () => {
    const env = Object.fromEntries(expanded(configOf(rendered.reactive)).map((n) => [n, `value-of-${n}`]));
    const config = parseConfig(JSON.parse(configOf(rendered.reactive)), env, "agentd.json");
    expect(config.triggers?.jobStore).toBeUndefined();
    expect(config.capabilities?.cron).toBe("timezones");
    expect(jobStoreFromConfig(config, nullLogger)?.key("morning")).toBe("jobs/agentd/morning");
    const c = sts().spec.template.spec.containers[0];
    expect(c.volumeMounts.filter((m: any) => !m.readOnly)).toEqual([]);
    expect(sts().spec.volumeClaimTemplates).toBeUndefined();
  });
});

describe.skipIf(NO_KUBECTL)("the served agent behind an ingress (TLS terminated in front)", () => {
  const objs = () => rendered.ingress;
  const c = () => named(objs(), "Deployment", "agentd").spec.template.spec.containers[0];
  const flag = (name: string) => (c().args as string[]).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

  test("plain HTTP to the controller only, --behind-proxy with auth, the public URL the Ingress serves", () => {
    expect(flag("behind-proxy")).toBeString();
    expect(flag("auth-tokens")).toBeString();
    expect(flag("tls-cert")).toBeUndefined();
    expect(named(objs(), "Deployment", "agentd").spec.template.spec.volumes.some((v: any) => v.secret?.secretName === "agentd-tls")).toBe(
      false,
    );
    const port = c().ports[0];
    expect(flag("http")).toBe(`0.0.0.0:${port.containerPort}`);
    for (const probe of [c().readinessProbe, c().livenessProbe, c().startupProbe])
      expect(probe.httpGet).toMatchObject({ scheme: "HTTP", port: port.name });
    const ingress = find(objs(), "Ingress")[0];
    const host = ingress.spec.rules[0].host;
    expect(ingress.spec.tls[0].hosts).toContain(host);
    expect(flag("public-url")).toBe(`https://${host}/mcp`);
    const service = named(objs(), "Service", "agentd");
    for (const p of ingress.spec.rules[0].http.paths) {
      expect(p.backend.service.name).toBe(service.metadata.name);
      expect(service.spec.ports.map((sp: any) => sp.name)).toContain(p.backend.service.port.name);
    }
    expect(ingress.spec.rules[0].http.paths.map((p: any) => p.path)).toEqual(["/mcp", "/a2a", "/.well-known"]);
    const np = named(objs(), "NetworkPolicy", "agentd");
    expect(np.spec.ingress).toHaveLength(1);
    expect(np.spec.ingress[0].from[0].namespaceSelector).toBeDefined();
    expect(np.spec.ingress[0].ports).toEqual([{ protocol: "TCP", port: port.containerPort }]);
  });
});

describe.skipIf(NO_KUBECTL)("the validators can fail", () => {
  test("a schema violation is caught", async () => {
    const bad = structuredClone(named(rendered.served, "Deployment", "agentd"));
    bad.spec.replicas = "two";
    const Model = await modelOf(bad);
    expect(() => new Model(bad).validate()).toThrow();
  });

  test("a kustomize error is kubectl's message", () => {
    expect(() => render(join(DEPLOY_DIR, "overlays"))).toThrow(/kubectl kustomize .*overlays/);
  });
});
