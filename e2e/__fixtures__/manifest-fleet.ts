/**
 * A fleet on one machine built from deploy/'s rendered manifests: each container's command, args and
 * environment come from `kubectl kustomize deploy/overlays/…` and run as a local process on 127.0.0.1. What a
 * cluster would provide is mapped, and nothing else: the pod's file paths (`/etc/agentd…`, `/data`) to a temp
 * root, the in-cluster names and ports (`agentd-store:7700`, `agentd-redis:6379`, the example hosts) to
 * loopback ports, `secretKeyRef`s to test values, `fieldRef` `metadata.name` to the replica's name, and
 * `$(VAR)` in args expanded as the kubelet does. The probes polled are the manifest's own (path, port name).
 */
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

/** A rendered Kubernetes object. */
export type K8sObject = { kind: string; metadata: { name: string } } & Record<string, unknown>;

/** The kubectl on PATH, or undefined (the fleet test is skipped without it). */
export const kubectlPath: string | undefined = Bun.which("kubectl") ?? undefined;

/** A container as rendered. */
export interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: Array<{
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
  }>;
  ports?: Array<{ name: string; containerPort: number }>;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}
/** A probe as rendered. */
export interface Probe {
  httpGet?: { path: string; port: string | number; scheme?: string };
  tcpSocket?: { port: string | number };
}

/** The objects of an overlay of deploy/, rendered by `kubectl kustomize` (as deploy/render.ts does for its checks). */
export function renderOverlay(overlay: string): K8sObject[] {
  const dir = join(import.meta.dir, "../../deploy/overlays", overlay);
  const out = Bun.spawnSync([kubectlPath ?? "kubectl", "kustomize", dir], { stdout: "pipe", stderr: "pipe" });
  if (out.exitCode !== 0) throw new Error(`kubectl kustomize ${dir}: ${out.stderr.toString().trim()}`);
  const docs = Bun.YAML.parse(out.stdout.toString());
  return (Array.isArray(docs) ? docs : [docs]).filter((d): d is K8sObject => d !== null && typeof d === "object");
}

/** The first container of workload `kind/name`. */
export function containerOf(objs: K8sObject[], kind: string, name: string): Container {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name) as any;
  if (!o) throw new Error(`no ${kind} ${name} in the rendered manifests`);
  return o.spec.template.spec.containers[0] as Container;
}

/** The ConfigMap's `agentd.json`. */
export function configMapText(objs: K8sObject[]): string {
  const cm = objs.find((x) => x.kind === "ConfigMap" && x.metadata.name === "agentd-config") as any;
  return cm.data["agentd.json"] as string;
}

/** The environment of `c`: literal values, `secretKeyRef` from `secrets["name/key"]`, `fieldRef metadata.name` = `podName`. */
export function envOf(
  c: Container,
  secrets: Record<string, string>,
  podName: string,
  mapValue: (v: string) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (e.value !== undefined) out[e.name] = mapValue(e.value);
    else if (e.valueFrom?.secretKeyRef) {
      const k = `${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`;
      const v = secrets[k];
      if (v === undefined) throw new Error(`the test has no value for the Secret key ${k} that ${c.name} reads`);
      out[e.name] = v;
    } else if (e.valueFrom?.fieldRef?.fieldPath === "metadata.name") out[e.name] = podName;
    else throw new Error(`${c.name}: env ${e.name} has a source the fleet does not map`);
  }
  return out;
}

/** `$(VAR)` in an arg, as the kubelet expands it from the container's environment. */
export const expandArg = (arg: string, env: Record<string, string>): string =>
  arg.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, n: string) => env[n] ?? m);

/** A pod's file path under the test's root (directories made). */
export function podPath(root: string, path: string): string {
  const p = join(root, path);
  mkdirSync(join(p, ".."), { recursive: true });
  return p;
}

/** The port a probe names (a port name resolved against the container's ports). */
export function probePort(c: Container, port: string | number): number {
  if (typeof port === "number") return port;
  const found = c.ports?.find((p) => p.name === port);
  if (!found) throw new Error(`${c.name}: probe port ${port} is not a named port`);
  return found.containerPort;
}

/** A free loopback port (for processes that take no port 0, like redis-server). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** GET a probe's path over the given origin: true on 2xx. */
export async function probeOk(probe: Probe, origin: string, ca: string): Promise<boolean> {
  if (!probe.httpGet) throw new Error("only HTTP probes are polled here");
  try {
    const r = await fetch(new URL(probe.httpGet.path, origin), { tls: { ca }, signal: AbortSignal.timeout(5000) } as RequestInit);
    await r.arrayBuffer();
    return r.ok;
  } catch {
    return false;
  }
}
