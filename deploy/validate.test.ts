/**
 * deploy/ in CI: every overlay renders (deploy/render.ts), every object validates against the official
 * Kubernetes OpenAPI schemas (`kubernetes-models` 5.1.0, generated from the upstream OpenAPI spec of
 * Kubernetes 1.34: it knows 1.34 fields such as `fileKeyRef`), and our own policy holds: PodSecurity
 * `restricted` pod specs, read-only root, probes on the server, no `latest` tags, resources set, the
 * CronJob's exit-code policy equal to packages/cli/src/exit-codes.ts, and the ConfigMap a valid agentd
 * configuration.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { triggerSpecsFromConfig } from "../packages/sdk/src/triggers/runner/trigger-specs.ts";
import { parseConfig } from "../packages/sdk/src/config/load.ts";
import { EXIT } from "../packages/cli/src/exit-codes.ts";
import { DEPLOY_DIR, type K8sObject, render } from "./render.ts";

const OVERLAYS = ["cronjob", "reactive", "served"] as const;
const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, render(join(DEPLOY_DIR, "overlays", o))])) as Record<(typeof OVERLAYS)[number], K8sObject[]>;

/** The kubernetes-models class for an object's apiVersion and kind. */
async function modelOf(o: K8sObject): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
  const mod = await import(group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`);
  const model = mod[o.kind];
  if (!model) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  return model;
}

const find = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind) as any[];
const podSpecs = (objs: K8sObject[]) => [
  ...find(objs, "Deployment").map((d) => d.spec.template.spec),
  ...find(objs, "CronJob").map((c) => c.spec.jobTemplate.spec.template.spec),
];

describe.each(OVERLAYS)("deploy/overlays/%s", (overlay) => {
  const objs = rendered[overlay];

  test("every object validates against the Kubernetes OpenAPI schema", async () => {
    expect(objs.length).toBeGreaterThan(3);
    for (const o of objs) {
      const Model = await modelOf(o);
      expect(() => new Model(o).validate()).not.toThrow();
    }
  });

  test("pod specs meet PodSecurity restricted, run read-only and non-root, with resources and pinned images", () => {
    const specs = podSpecs(objs);
    expect(specs.length).toBe(1);
    for (const spec of specs) {
      expect(spec.securityContext.runAsNonRoot).toBe(true);
      expect(spec.securityContext.runAsUser).not.toBe(0);
      expect(spec.securityContext.seccompProfile.type).toBe("RuntimeDefault");
      expect(spec.automountServiceAccountToken).toBe(false);
      expect(spec.hostNetwork ?? false).toBe(false);
      for (const v of spec.volumes ?? []) expect(v.hostPath).toBeUndefined();
      for (const c of spec.containers) {
        expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
        expect(c.securityContext.privileged ?? false).toBe(false);
        expect(c.image).toMatch(/^[^:]+:(?!latest$)[\w.-]+$/);
        expect(c.resources.requests.cpu).toBeDefined();
        expect(c.resources.requests.memory).toBeDefined();
        expect(c.resources.limits.memory).toBeDefined();
      }
    }
  });

  test("the ConfigMap holds a valid agentd configuration, with no secret in it", () => {
    const [cm] = find(objs, "ConfigMap");
    const text = cm.data["agentd.json"] as string;
    // Parsed and its triggers planned the way `agentd serve` does at start-up (cron version rules included).
    expect(() => triggerSpecsFromConfig(parseConfig(JSON.parse(text), { TICKETS_TOKEN: "t" }, "agentd.json"))).not.toThrow();
    expect(text).not.toMatch(/sk-|Bearer [A-Za-z0-9]{8,}/);
  });

  test("a NetworkPolicy selects the agent's pods", () => {
    const [np] = find(objs, "NetworkPolicy");
    expect(np.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    for (const spec of find(objs, "Deployment").map((d) => d.spec.template))
      for (const [k, v] of Object.entries(np.spec.podSelector.matchLabels)) expect(spec.metadata.labels[k]).toBe(v);
  });
});

describe("the CronJob (one-shot shape)", () => {
  const [cron] = find(rendered.cronjob, "CronJob");
  const job = cron.spec.jobTemplate.spec;
  const container = job.template.spec.containers[0];
  const rule = (action: string) => job.podFailurePolicy.rules.filter((r: any) => r.action === action && r.onExitCodes).flatMap((r: any) => r.onExitCodes.values);

  test("maps agentd's exit codes: usage and budget fail the Job, upstream retries, SIGTERM is a disruption", () => {
    expect(rule("FailJob").sort()).toEqual([EXIT.usage, EXIT.budget].sort());
    expect(rule("Count")).toContain(EXIT.upstream);
    expect(rule("Count")).toContain(EXIT.runFailed);
    expect(rule("Ignore")).toEqual([EXIT.sigterm]);
    expect(job.podFailurePolicy.rules.some((r: any) => r.action === "Ignore" && r.onPodConditions?.[0]?.type === "DisruptionTarget")).toBe(true);
    for (const r of job.podFailurePolicy.rules) if (r.onExitCodes) expect(r.onExitCodes.containerName).toBe(container.name);
    expect(job.template.spec.restartPolicy).toBe("Never"); // podFailurePolicy requires it
    expect(job.backoffLimit).toBeGreaterThan(0);
  });

  test("runs once per schedule with a run id derived from the scheduled time", () => {
    expect(cron.spec.concurrencyPolicy).toBe("Forbid");
    expect(container.args.slice(0, 3)).toEqual(["run", "--mode", "once"]);
    const runId = container.env.find((e: any) => e.name === "RUN_ID");
    expect(runId.valueFrom.fieldRef.fieldPath).toBe("metadata.labels['batch.kubernetes.io/job-name']");
  });
});

describe("the served Deployment", () => {
  const [deploy] = find(rendered.served, "Deployment");
  const spec = deploy.spec.template.spec;
  const c = spec.containers[0];
  const flag = (name: string) => (c.args as string[]).find((a) => a.startsWith(`--${name}=`))?.split("=")[1];

  test("probes: readiness on /readyz, liveness on /healthz, over HTTPS on the served port", () => {
    expect(c.readinessProbe.httpGet).toMatchObject({ path: "/readyz", port: "https", scheme: "HTTPS" });
    expect(c.livenessProbe.httpGet).toMatchObject({ path: "/healthz", port: "https", scheme: "HTTPS" });
    expect(flag("http")).toEndWith(`:${c.ports[0].containerPort}`);
  });

  test("the termination grace covers --grace plus the preStop pause", () => {
    const grace = Number(flag("grace")?.replace(/s$/, ""));
    expect(grace).toBeGreaterThan(0);
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThan(grace + c.lifecycle.preStop.sleep.seconds);
  });

  test("TLS from a cert-manager Secret, the API key from a Secret named by apiKeyEnv", () => {
    expect(flag("tls-cert")).toBe("/etc/agentd/tls/tls.crt");
    expect(flag("tls-key")).toBe("/etc/agentd/tls/tls.key");
    expect(spec.volumes.find((v: any) => v.name === "tls").secret.secretName).toBe("agentd-tls");
    const [cm] = find(rendered.served, "ConfigMap");
    const keyEnv = JSON.parse(cm.data["agentd.json"]).model.apiKeyEnv;
    expect(c.env.find((e: any) => e.name === keyEnv)?.valueFrom?.secretKeyRef?.name).toBe("agentd-secrets");
  });

  test("the reactive overlay runs one replica (schedules fire once) with triggers configured", () => {
    const [reactive] = find(rendered.reactive, "Deployment");
    expect(reactive.spec.replicas).toBe(1);
    expect(deploy.spec.replicas).toBeGreaterThan(1);
    const [cm] = find(rendered.reactive, "ConfigMap");
    expect(JSON.parse(cm.data["agentd.json"]).triggers.schedules).toHaveLength(1);
  });
});

describe("the validators can fail", () => {
  test("a schema violation is caught", async () => {
    const [deploy] = find(rendered.served, "Deployment");
    const bad = structuredClone(deploy);
    bad.spec.replicas = "two";
    const Model = await modelOf(bad);
    expect(() => new Model(bad).validate()).toThrow();
  });
});
