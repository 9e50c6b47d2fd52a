/// <reference lib="dom" />
/**
 * The console page: routes (`#/overview`, `#/runs`, `#/run/PRINCIPAL/ID`, `#/questions`, `#/triggers`,
 * `#/subagents`, `#/servers`), the sign-in form when the listener needs a token, and the live snapshot that every page is
 * redrawn from. Built by `bun build` into the embedded `app.js` (scripts/build-console.ts).
 */
import { h } from "./dom.ts";
import { act, ApiError, follow, get, token } from "./live.ts";
import { overview, runDetail, runsPage, serversPage, subagentsPage, triggersPage, type PageContext } from "./pages.ts";
import { CHART_KEYS } from "./run-pages.ts";
import { pendingCount, questionsPage } from "./questions.ts";

const PAGES: [string, string][] = [
  ["overview", "Overview"],
  ["runs", "Runs"],
  ["questions", "Questions"],
  ["triggers", "Triggers"],
  ["subagents", "Subagents and tasks"],
  ["servers", "Servers"],
];

const main = document.getElementById("main")!;
const nav = document.getElementById("nav")!;
const who = document.getElementById("who")!;
const banner = document.getElementById("banner")!;

let snap: any;
let stop: (() => void) | undefined;
const filters: Record<string, string> = {};
/** The page drawn now, and how to refresh its data without redrawing its controls. */
let drawn: { route: string; update?: (c: PageContext) => void } | undefined;

function say(message: string, bad = false): void {
  banner.textContent = message;
  banner.className = bad ? "banner bad" : "banner";
  banner.hidden = message === "";
}

const context = (): PageContext => ({
  snap,
  operator: snap?.principal?.role === "operator",
  async act(action, params = {}, confirmText) {
    if (confirmText && !confirm(confirmText)) throw new Error("not confirmed");
    try {
      const result = await act(action, params);
      const restart = (result as { restartRequired?: string[] })?.restartRequired;
      say(`${action}: ${JSON.stringify(result)}${restart?.length ? ` (restart required for ${restart.join(", ")})` : ""}`);
      return result;
    } catch (e) {
      say(`${action} failed: ${(e as Error).message}`, true);
      throw e;
    }
  },
});

const route = () => (location.hash.replace(/^#\/?/, "") || "overview").split("/");

async function draw(): Promise<void> {
  const [page = "overview", ...rest] = route();
  const key = [page, ...rest].join("/");
  const current = page === "run" ? "runs" : page;
  for (const a of nav.querySelectorAll("a")) {
    if (a.dataset.page === current) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (!snap) return;
  const c = context();
  if (drawn?.route === key && drawn.update) return drawn.update(c);
  let el: HTMLElement;
  let update: ((c: PageContext) => void) | undefined;
  switch (page) {
    case "runs": {
      // A chart's link (`#/runs/hour=…&status=…`) sets the filters it names; the plain page drops a chart's.
      for (const k of CHART_KEYS) delete filters[k];
      if (rest[0]) {
        for (const k of ["status", "trigger", "principal", "text"]) delete filters[k];
        for (const [k, v] of new URLSearchParams(rest[0])) filters[k] = v;
      }
      const r = runsPage(c, filters, () => drawn?.update?.(context()));
      el = r.page;
      update = r.update;
      break;
    }
    case "run": {
      const [principal = "", id = ""] = rest.map(decodeURIComponent);
      try {
        el = runDetail(c, await get(`run?id=${encodeURIComponent(id)}&principal=${encodeURIComponent(principal)}`));
      } catch (e) {
        el = h(
          "section",
          {},
          h("h1", {}, "Run not found"),
          h("p", {}, (e as Error).message),
          h("p", {}, h("a", { href: "#/runs" }, "← all runs")),
        );
      }
      break;
    }
    case "questions": {
      const q = questionsPage(c);
      el = q.page;
      update = q.update;
      break;
    }
    case "triggers":
      el = triggersPage(c);
      break;
    case "subagents":
      el = subagentsPage(c);
      break;
    case "servers":
      el = serversPage(c);
      break;
    default:
      el = overview(c);
  }
  const moved = drawn?.route !== key;
  // A redraw keeps the focused control's place when it can (a button in a table that updates).
  const focusedId = document.activeElement?.id;
  main.replaceChildren(el);
  drawn = { route: key, update };
  if (moved) main.focus();
  else if (focusedId) document.getElementById(focusedId)?.focus();
}

function signIn(message?: string): void {
  stop?.();
  snap = undefined;
  drawn = undefined;
  who.replaceChildren();
  const input = h("input", { type: "password", name: "token", autocomplete: "off", required: true, id: "token" });
  const form = h(
    "form",
    {
      onsubmit: (e: Event) => {
        e.preventDefault();
        token.set(input.value.trim());
        start();
      },
    },
    h("label", {}, "Bearer token", input),
    h("button", { type: "submit" }, "Sign in"),
  );
  main.replaceChildren(
    h(
      "section",
      { class: "login", "aria-labelledby": "login-h" },
      h("h1", { id: "login-h" }, "Sign in"),
      h("p", { class: "muted" }, "The token stays in this tab (session storage) and is sent as an Authorization header."),
      message ? h("p", { class: "status-failed" }, message) : null,
      form,
    ),
  );
  input.focus();
}

function showWho(): void {
  const p = snap.principal;
  who.replaceChildren(
    h("span", {}, `${p.id} (${p.role})`),
    token.get() ? h("button", { type: "button", id: "sign-out", onclick: () => (token.clear(), signIn()) }, "Sign out") : "",
  );
}

function start(): void {
  stop?.();
  say("connecting…");
  stop = follow(
    (s) => {
      snap = s;
      say("");
      showWho();
      // The navigation says how many questions wait, on every page.
      const n = pendingCount(s);
      const link = nav.querySelector<HTMLElement>('a[data-page="questions"]');
      if (link) link.textContent = n ? `Questions (${n})` : "Questions";
      void draw();
    },
    (state, detail) => {
      if (state === "unauthorized") return signIn(token.get() ? "That token was not accepted." : undefined);
      if (state === "forbidden") return say(detail ?? "forbidden", true);
      if (state === "retrying") say("connection lost; reconnecting…", true);
    },
  );
}

// Uptime ticks in the page between snapshots (the server pushes only changes).
setInterval(() => {
  for (const el of document.querySelectorAll<HTMLElement>("[data-uptime]")) {
    const s = Math.floor((Date.now() - Date.parse(el.dataset.uptime!)) / 1000);
    el.textContent =
      s < 60
        ? `${s} s`
        : s < 3600
          ? `${Math.floor(s / 60)} min ${s % 60} s`
          : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  }
}, 1000);

nav.append(...PAGES.map(([id, label]) => h("a", { href: `#/${id}`, "data-page": id }, label)));
window.addEventListener("hashchange", () => void draw());

async function boot(): Promise<void> {
  try {
    const auth = await get("auth");
    if (auth.required && !token.get()) return signIn();
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
  }
  start();
}
void boot();
