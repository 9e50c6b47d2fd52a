/**
 * Render a kustomization of deploy/ with `kubectl kustomize` (kubectl's own kustomize: v5.5 in kubectl 1.32)
 * and parse the objects, for the checks in deploy/validate.test.ts. Nothing of kustomize is reimplemented
 * here: what CI checks is exactly what `kubectl apply -k` applies. Without kubectl on PATH, `kubectl()`
 * is undefined and the checks are skipped (Debian's `kubernetes-client` is kubectl 1.20 with kustomize
 * v2, which knows neither `labels` nor components).
 */
import { dirname } from "node:path";

/** A Kubernetes object as rendered. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
} & Record<string, unknown>;

/** deploy/ itself. */
export const DEPLOY_DIR = dirname(import.meta.path);

/** The kubectl on PATH, or undefined. */
export function kubectl(): string | undefined {
  return Bun.which("kubectl") ?? undefined;
}

/** Render the kustomization in `dir` to its objects; a kustomize error is thrown with kubectl's message. */
export function render(dir: string): K8sObject[] {
  const bin = kubectl();
  if (!bin) throw new Error("kubectl is not on PATH: install kubectl (1.27 or later) to render deploy/");
  const out = Bun.spawnSync([bin, "kustomize", dir], { stdout: "pipe", stderr: "pipe" });
  if (out.exitCode !== 0) throw new Error(`kubectl kustomize ${dir}: ${out.stderr.toString().trim()}`);
  const docs = Bun.YAML.parse(out.stdout.toString());
  return (Array.isArray(docs) ? docs : [docs]).filter((d): d is K8sObject => d !== null && typeof d === "object");
}
