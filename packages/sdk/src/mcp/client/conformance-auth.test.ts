/**
 * Every `auth/*` client scenario of `@modelcontextprotocol/conformance` 0.1.16 that targets a revision
 * agentd speaks (2025-03-26, 2025-06-18, 2025-11-25), the client-credentials and enterprise-managed
 * authorization (cross-app access: token exchange at the IdP, then the JWT bearer grant) extension scenarios, and the
 * draft scenarios that exercise behaviour we implement (resource mismatch, offline access), run by the real
 * harness against `auth-driver.ts` (our transport + OAuth provider). Every check must pass: no FAILURE, no
 * WARNING, the scenario's own checks present as SUCCESS, and the client exits 0 (except where the scenario
 * itself ends the client with an error: the retry limit and the refused resource).
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runClientScenario, type ScenarioRun } from "./__fixtures__/conformance-run.ts";

setDefaultTimeout(120_000);

const DRIVER = fileURLToPath(new URL("./__fixtures__/conformance-auth-driver.ts", import.meta.url));
const FLOW = [
  "authorization-server-metadata",
  "authorization-request",
  "pkce-code-challenge-sent",
  "pkce-s256-method-used",
  "token-request",
  "pkce-verifier-matches-challenge",
  "valid-bearer-token",
];
const RESOURCE = [
  "resource-parameter-in-authorization",
  "resource-parameter-in-token",
  "resource-parameter-valid-uri",
  "resource-parameter-consistency",
];

/** Scenario → the checks that must be there as SUCCESS, and whether the client is meant to fail. */
const SCENARIOS: Record<string, { required: string[]; clientFails?: boolean }> = {
  "auth/metadata-default": { required: ["prm-pathbased-requested", "client-registration", ...FLOW] },
  "auth/metadata-var1": { required: ["prm-pathbased-requested", "client-registration", ...FLOW] },
  "auth/metadata-var2": { required: ["client-registration", ...FLOW] },
  "auth/metadata-var3": { required: ["client-registration", ...FLOW] },
  "auth/basic-cimd": { required: ["cimd-client-id-used", ...FLOW] },
  "auth/scope-from-www-authenticate": { required: ["scope-from-www-authenticate", ...FLOW] },
  "auth/scope-from-scopes-supported": { required: ["scope-from-scopes-supported", ...FLOW] },
  "auth/scope-omitted-when-undefined": { required: ["scope-omitted-when-undefined", ...FLOW] },
  "auth/scope-step-up": { required: ["scope-step-up-initial", "scope-step-up-escalation", ...FLOW] },
  "auth/scope-retry-limit": { required: ["scope-retry-limit"], clientFails: true },
  "auth/token-endpoint-auth-basic": { required: ["token-endpoint-auth-method", ...RESOURCE, ...FLOW] },
  "auth/token-endpoint-auth-post": { required: ["token-endpoint-auth-method", ...RESOURCE, ...FLOW] },
  "auth/token-endpoint-auth-none": { required: ["token-endpoint-auth-method", ...RESOURCE, ...FLOW] },
  "auth/pre-registration": { required: ["pre-registration-auth", ...FLOW] },
  "auth/2025-03-26-oauth-metadata-backcompat": {
    required: ["authorization-server-metadata", "client-registration", "authorization-request", "token-request"],
  },
  "auth/2025-03-26-oauth-endpoint-fallback": { required: ["client-registration", "authorization-request", "token-request"] },
  "auth/client-credentials-jwt": { required: ["client-credentials-jwt-verified"] },
  "auth/client-credentials-basic": { required: ["client-credentials-basic-auth"] },
  "auth/resource-mismatch": { required: ["resource-mismatch-rejected"], clientFails: true },
  "auth/offline-access-not-supported": { required: ["sep-2207-offline-access-not-requested", ...FLOW] },
  "auth/cross-app-access-complete-flow": { required: ["complete-flow-token-exchange", "complete-flow-jwt-bearer"] },
  "auth/offline-access-scope": { required: ["sep-2207-offline-access-requested", "sep-2207-client-metadata-grant-types", ...FLOW] },
};

const runs: ScenarioRun[] = [];
afterEach(() => {
  for (const r of runs.splice(0)) rmSync(r.dir, { recursive: true, force: true });
});

describe("official conformance auth scenarios against our OAuth client", () => {
  for (const [scenario, { required, clientFails }] of Object.entries(SCENARIOS)) {
    test(scenario, async () => {
      const run = await runClientScenario(scenario, DRIVER);
      runs.push(run);
      const bad = run.checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      expect(bad.map((c) => `${c.id}: ${c.status} ${c.description ?? ""} ${c.errorMessage ?? ""}`)).toEqual([]);
      for (const id of required) {
        const check = run.checks.find((c) => c.id === id);
        expect(check ? `${id}: ${check.status}` : `${id}: missing\n${run.output}`).toBe(`${id}: SUCCESS`);
      }
      if (clientFails) expect(run.output).toContain("Client exited with code 1");
      else expect(run.output).not.toContain("Client exited with code");
      expect(run.code).toBe(0);
    });
  }
});
