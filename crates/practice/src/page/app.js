// The practice page: plain JavaScript, no build step, nothing loaded from elsewhere.
// Everything comes from the judge's HTTP API (the book's "The practice page"), authorised by the
// cookie the server set when this page was opened with ?token=…; live updates arrive as
// Server-Sent Events from /api/events and trigger a re-read of what they concern.
// One file because the page has no build step (no bundler, no modules to serve); its sections
// follow the page's panels.
"use strict";

// ---------- small helpers ----------

// An element with attributes and children (strings become text: nothing here is parsed as HTML
// except the statement, which the server renders and sanitises).
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

const $ = (sel) => document.querySelector(sel);

// The main area's content (nulls left out: replaceChildren would show them as text).
function appendAll(el, ...children) {
  el.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

function setMain(...children) {
  $("#main").replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

function fmtMs(ms) {
  if (ms === null || ms === undefined) return "";
  return ms >= 10000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms) + " ms";
}

// A span of time as people say it: "45 s", "12 min", "2 h 5 min".
function fmtDuration(ms) {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

function fmtKib(kib) {
  if (kib === null || kib === undefined) return "";
  return kib >= 1024 ? (kib / 1024).toFixed(1) + " MiB" : kib + " KiB";
}

function fmtWhen(t) {
  if (!t) return "";
  const d = new Date(typeof t === "number" && t < 1e12 ? t * 1000 : t);
  return isNaN(d) ? String(t) : d.toLocaleString();
}

function verdictClass(v) {
  if (!v) return "verdict pending";
  if (v === "AC") return "verdict AC";
  if (v === "CE" || v === "JE") return "verdict";
  return "verdict bad";
}

// Without a verdict yet: "queued" (waiting for a free engine), "judging", else "…".
function verdictBadge(v, big, waiting) {
  const pending = waiting === "queued" || waiting === "judging" ? waiting : "…";
  return h("span", { class: verdictClass(v) + (big ? " big" : "") }, v || pending);
}

// What a submission without a verdict is doing: waiting for an engine, or being judged.
function waitingState(s) {
  return s.state === "judging" ? "judging" : "queued";
}

// Only http(s) links from received problems reach an href.
function safeHref(url) {
  return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null;
}

// ---------- the API ----------

// Authorisation is the token cookie the server set (HttpOnly, SameSite=Strict) when this page
// was opened as /?token=…: the page never sees the token itself.

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (_) {
    data = text;
  }
  if (res.status === 401) {
    showBanner("Not authorised: open the address that `judge practice` printed (it ends with ?token=…).");
  }
  if (!res.ok) {
    const msg = (data && (data.error || data.message)) || text || res.statusText;
    throw new ApiError(res.status, `${method} ${path}: ${res.status} ${msg}`);
  }
  return data;
}

function showBanner(text) {
  const b = $("#banner");
  delete b.dataset.kind;
  b.textContent = text;
  b.hidden = !text;
}

// ---------- shapes (the page reads the API through these, tolerant of optional fields) ----------

function testCount(p) {
  if (Array.isArray(p.tests)) return p.tests.length;
  return typeof p.tests === "number" ? p.tests : null;
}

function samplesOf(p) {
  const raw = p.samples || (Array.isArray(p.tests) && typeof p.tests[0] === "object" ? p.tests : []);
  return raw
    .filter((t) => t && typeof t.input === "string")
    .map((t, i) => ({
      name: t.name || `sample ${i + 1}`,
      input: t.input,
      output: t.output ?? t.answer ?? "",
      custom: Boolean(t.custom),
    }));
}

function submissionTests(s) {
  return (s && Array.isArray(s.tests) ? s.tests : []).map((t, i) => ({
    ...t,
    index: t.index ?? i + 1,
  }));
}

// ---------- state ----------

const state = {
  problems: [],
  contests: [],
  route: { view: "problems" },
  problem: null, // the open problem's detail
  submission: null, // the submission shown
  selectedTest: null, // the test whose diff is shown
  history: [],
  results: {}, // problem id -> best verdict seen in history ("AC" or other)
  contest: null,
  scoreboard: null,
  stress: null,
  languages: ["C++", "C", "Rust", "Python 3"],
  watches: [],
  lastSource: null, // what was last submitted: {source, language} or {path}
};

// ---------- routing ----------

function parseRoute() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "p" && parts[1]) return { view: "problem", id: parts[1], submission: parts[3] || null };
  if (parts[0] === "contests") return { view: "contests" };
  if (parts[0] === "c" && parts[1]) return { view: "contest", id: parts[1] };
  return { view: "problems" };
}

async function route() {
  const before = state.route;
  state.route = parseRoute();
  if (before.view !== state.route.view || before.id !== state.route.id) window.scrollTo(0, 0);
  for (const a of document.querySelectorAll("header nav a")) {
    const on = a.dataset.nav === (state.route.view.startsWith("contest") ? "contests" : "problems");
    a.classList.toggle("on", on);
  }
  renderSidebar();
  try {
    if (state.route.view === "problem") await openProblem(state.route.id, state.route.submission);
    else if (state.route.view === "contests") renderContests();
    else if (state.route.view === "contest") await openContest(state.route.id);
    else renderHome();
  } catch (e) {
    setMain(h("p", { class: "error" }, e.message));
  }
}

// ---------- the problem list ----------

async function loadProblems() {
  try {
    const list = await api("GET", "/api/problems");
    state.problems = Array.isArray(list) ? list : [];
    // The server answers again: a banner about it being away is stale.
    if ($("#banner").dataset.kind === "away") showBanner("");
    renderSidebar();
    if (state.route.view === "problems") renderHome();
  } catch (e) {
    if (!(e instanceof ApiError)) {
      showBanner("The judge does not answer (was `judge practice` stopped?): " + e.message);
      $("#banner").dataset.kind = "away";
    } else if (e.status !== 401) showBanner(e.message);
  }
}

// "AC" once solved, the last verdict after a rejection, null before any submission.
function resultOf(p) {
  if (p.solved) return "AC";
  return state.results[p.id] || (p.submissions ? "tried" : null);
}

function renderSidebar() {
  const groups = new Map();
  for (const p of state.problems) {
    const g = p.group || "";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(p);
  }
  const out = [];
  for (const [g, ps] of groups) {
    if (g || groups.size > 1) out.push(h("div", { class: "group" }, g || "Other problems"));
    for (const p of ps) {
      const r = resultOf(p);
      out.push(
        h(
          "a",
          {
            class: "problem" + (state.route.id === String(p.id) && state.route.view === "problem" ? " on" : ""),
            href: `#/p/${encodeURIComponent(p.id)}`,
            "data-problem": p.id,
            title: p.name,
          },
          h("span", { class: "mark " + (r === "AC" ? "AC" : r ? "bad" : "") }, r === "AC" ? "✓" : r ? "✗" : ""),
          p.name || p.id,
        ),
      );
    }
  }
  $("#problem-list").replaceChildren(...out);
  $("#no-problems").hidden = state.problems.length > 0;
}

function renderHome() {
  const rows = state.problems.map((p) =>
    h(
      "tr",
      { class: "clickable", onclick: () => (location.hash = `#/p/${encodeURIComponent(p.id)}`) },
      h("td", {}, h("a", { href: `#/p/${encodeURIComponent(p.id)}` }, p.name || p.id)),
      h("td", {}, p.group || ""),
      h("td", { class: "num" }, p.time_limit_ms != null ? fmtMs(p.time_limit_ms) : ""),
      h("td", { class: "num" }, p.memory_mib != null ? p.memory_mib + " MiB" : ""),
      h("td", { class: "num" }, testCount(p) ?? ""),
      h("td", { class: "num" }, p.submissions || ""),
      h("td", { class: "outcome" },
        p.solved
          ? [verdictBadge("AC"), " ", h("span", { class: "hint" },
              [p.time_to_ac_ms != null ? `in ${fmtDuration(p.time_to_ac_ms)}` : "", p.attempts ? `, ${p.attempts} rejected` : ""].join(""))]
          : p.submissions ? h("span", { class: "hint" }, "not yet") : ""),
    ),
  );
  setMain(
    h("h1", {}, "Problems"),
    state.problems.length
      ? h(
          "table",
          { id: "problems" },
          h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Group"), h("th", { class: "num" }, "Time"),
            h("th", { class: "num" }, "Memory"), h("th", { class: "num" }, "Tests"), h("th", { class: "num" }, "Submissions"), h("th", {}, "Solved"))),
          h("tbody", {}, rows),
        )
      : h("p", { class: "hint" }, "No problems yet: parse one with competitive-companion (custom port = this judge's receiver port)."),
  );
}

// ---------- one problem ----------

async function openProblem(id, submissionId) {
  const same = state.problem && String(state.problem.id) === String(id);
  if (!same) {
    state.submission = null;
    state.selectedTest = null;
    state.stress = null;
    let detail;
    try {
      detail = await api("GET", `/api/problems/${encodeURIComponent(id)}`);
    } catch (e) {
      // A server without the detail route: the list entry is all there is.
      detail = state.problems.find((p) => String(p.id) === String(id));
      if (!detail) throw e;
    }
    // Another problem was opened meanwhile: this answer is stale.
    if (state.route.view !== "problem" || String(state.route.id) !== String(id)) return;
    state.problem = detail;
    await loadWatches();
    renderProblem();
    await loadHistory();
  }
  if (submissionId) await showSubmission(submissionId);
  else if (!state.submission && state.history[0]) await showSubmission(state.history[0].id);
  if (state.route.view === "problem" && String(state.route.id) === String(id)) renderProblem();
}

// As with showSubmission, the last call wins: a late list (of a problem left meanwhile, or an
// older one of this problem) is dropped, never marked on the problem open now.
let historyRequests = 0;

async function loadHistory() {
  if (!state.problem) return;
  const request = ++historyRequests;
  const problem = state.problem.id;
  try {
    const list = await api("GET", `/api/submissions?problem=${encodeURIComponent(problem)}`);
    if (request !== historyRequests || !state.problem || String(state.problem.id) !== String(problem)) return;
    state.history = Array.isArray(list) ? list : [];
    // A submission the judge refused (a JE with its reason) is no attempt: no ✗ for it.
    const attempted = state.history.filter((s) => s.verdict && !(s.verdict === "JE" && s.error));
    const best = attempted.some((s) => s.verdict === "AC") ? "AC" : attempted[0]?.verdict;
    if (best) state.results[state.problem.id] = best;
    renderSidebar();
  } catch (_) {
    if (request === historyRequests) state.history = [];
  }
}

// The line under a problem's name: group, limits, tests, file names, how it went.
function metaLine(p) {
  const link = safeHref(p.url);
  const tl = p.time_limit_ms;
  return h("div", { class: "meta", id: "problem-meta" },
      p.group ? h("span", {}, p.group) : null,
      tl != null ? h("span", {}, "time limit ", h("b", {}, fmtMs(tl))) : null,
      p.memory_mib != null ? h("span", {}, "memory ", h("b", {}, p.memory_mib + " MiB")) : null,
      testCount(p) != null ? h("span", {}, testCount(p) + " tests") : null,
      p.interactive ? h("span", {}, "interactive") : null,
      p.input_file ? h("span", {}, "reads ", h("code", {}, p.input_file)) : null,
      p.output_file ? h("span", {}, "writes ", h("code", {}, p.output_file)) : null,
      p.solved
        ? h("span", { class: "ok", id: "solved-note" }, "solved",
            p.time_to_ac_ms != null ? ` in ${fmtDuration(p.time_to_ac_ms)}` : "",
            p.attempts ? `, after ${p.attempts} rejected ${p.attempts === 1 ? "attempt" : "attempts"}` : "")
        : p.submissions ? h("span", {}, `${p.submissions} ${p.submissions === 1 ? "submission" : "submissions"}, not solved yet`) : null,
      link ? h("a", { href: link, target: "_blank", rel: "noopener noreferrer" }, "original ↗") : null);
}

function renderProblem() {
  const p = state.problem;
  if (!p) return;
  const link = safeHref(p.url);
  const statementHtml = p.statement_html;
  const statement = h("section", { class: "statement", id: "statement" });
  if (typeof statementHtml === "string" && statementHtml) {
    // Rendered and sanitised on the server (src/practice/statement.rs): raw HTML escaped,
    // TeX as MathML, unsafe link schemes dropped.
    statement.innerHTML = statementHtml;
  } else {
    const samples = samplesOf(p).filter((t) => !t.custom);
    appendAll(statement,
      h("p", { class: "hint" }, link ? ["Statement: ", h("a", { href: link, target: "_blank", rel: "noopener noreferrer" }, link)] : "No statement."),
      samples.length ? h("h2", {}, "Samples") : null,
      samples.map((s) =>
        h("div", { class: "samples" },
          h("h3", {}, `Input (${s.name})`), h("h3", {}, "Output"),
          h("pre", { class: "sample-in" }, s.input), h("pre", { class: "sample-out" }, s.output)),
      ),
    );
  }
  setMain(
    h("h1", { id: "problem-name" }, p.name || p.id),
    metaLine(p),
    p.error ? h("p", { class: "error", id: "problem-error" }, p.error) : null,
    statement,
    p.needs_tests ? needsTestsPanel() : null,
    submitPanel(),
    h("div", { id: "result" }, resultPanel()),
    historyPanel(),
    testsPanel(),
    p.interactive ? interactivePanel() : null,
    comparePanel(),
    stressPanel(),
  );
  if (window.MathMLElement === undefined) {
    statement.prepend(h("p", { class: "hint" }, "This browser does not show MathML; formulas appear as plain text."));
  }
}

// A problem received without samples: nothing can be judged until it has a test.
function needsTestsPanel() {
  return h("section", { class: "panel notice", id: "needs-tests" },
    h("h2", {}, "Add a test first"),
    h("p", {}, "This problem came without samples, so there is nothing to judge a solution on yet. Add a test: an input and its expected output (from the statement, or worked out by hand)."),
    h("button", { class: "primary", type: "button", id: "go-add-test", onclick: () => {
      const input = document.getElementById("own-input");
      if (!input) return;
      input.scrollIntoView({ block: "center" });
      input.focus();
    } }, "Add a test"));
}

function submitPanel() {
  const mode = state.submitMode || "paste";
  const tab = (m, label) =>
    h("button", { class: mode === m ? "on" : "", type: "button", "data-tab": m,
      onclick: () => { state.submitMode = m; renderProblem(); } }, label);
  const status = h("span", { id: "submit-status", class: "hint" });
  let body;
  if (mode === "paste") {
    const lang = h("select", { id: "language" },
      state.languages.map((l) => h("option", { value: l, selected: l === (state.language || "C++") }, l)));
    const text = h("textarea", { id: "source", spellcheck: "false", placeholder: "Paste your solution here (Ctrl+Enter submits)" });
    text.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        document.getElementById("submit").click();
      }
    });
    if (state.draft) text.value = state.draft;
    text.addEventListener("input", () => (state.draft = text.value));
    body = h("div", {}, text,
      h("div", { class: "row" }, "Language ", lang,
        h("button", { class: "primary", id: "submit", type: "button", disabled: state.problem.needs_tests ? "" : null,
          title: state.problem.needs_tests ? "Add a test first" : null, onclick: async (ev) => {
          state.language = lang.value;
          await submit(ev.target, status, { source: text.value, language: lang.value });
        } }, "Submit"), status));
  } else {
    const path = h("input", { type: "text", id: "path", placeholder: "/home/you/contest/a.cpp", value: state.watchPath || "" });
    const watching = state.watches.filter((w) => String(w.problem) === String(state.problem.id));
    body = h("div", {},
      h("p", { class: "hint" }, "The judge reads this file now and re-judges it every time you save it."),
      watching.length
        ? h("ul", { id: "watches" }, watching.map((w) => h("li", {}, h("span", { class: "mono" }, w.path), " ",
            h("button", { type: "button", onclick: async () => {
              await api("DELETE", `/api/watches/${encodeURIComponent(w.id)}`).catch((e) => setStatus("submit-status", e.message, "error"));
              await loadWatches();
              renderProblem();
            } }, "stop watching"))))
        : null,
      h("div", { class: "row" }, path,
        h("button", { class: "primary", id: "watch", type: "button", disabled: state.problem.needs_tests ? "" : null,
          title: state.problem.needs_tests ? "Add a test first" : null, onclick: async (ev) => {
          state.watchPath = path.value.trim();
          await submit(ev.target, status, { path: state.watchPath });
        } }, "Watch"), status));
  }
  return h("section", { class: "panel", id: "submit-panel" }, h("h2", {}, "Submit"),
    h("div", { class: "tabs" }, tab("paste", "Paste"), tab("watch", "Watch a file")), body);
}

async function submit(button, status, what) {
  if (what.source !== undefined && !what.source.trim()) {
    status.textContent = "Nothing to submit: paste a solution first.";
    return;
  }
  if (what.path !== undefined && !what.path) {
    status.textContent = "Give the absolute path of your source file.";
    return;
  }
  button.disabled = true;
  status.textContent = "Submitting…";
  try {
    const res = await api("POST", "/api/submissions", { problem: state.problem.id, ...what });
    state.lastSource = what;
    status.textContent = what.path ? "Watching: every save is judged." : "";
    if (what.path) await loadWatches();
    state.submission = { id: res.id, problem: state.problem.id, verdict: null, tests: [] };
    state.selectedTest = null;
    await showSubmission(res.id);
    await loadHistory();
    renderProblem();
  } catch (e) {
    status.textContent = "";
    status.className = "error";
    status.textContent = e.message;
  } finally {
    button.disabled = false;
  }
}

async function loadWatches() {
  try {
    const list = await api("GET", "/api/watches");
    state.watches = Array.isArray(list) ? list : [];
  } catch (_) {
    state.watches = [];
  }
}

// Every call says "show this submission now": the last call wins. An answer that comes back
// after a later call's (a refresh of the submission shown before one just submitted, slow on a
// busy machine) must not bring the older submission back.
let shownRequests = 0;

async function showSubmission(id) {
  const request = ++shownRequests;
  let shown;
  try {
    shown = await api("GET", `/api/submissions/${encodeURIComponent(id)}`);
  } catch (e) {
    shown = { id, error: e.message, tests: [] };
  }
  if (request !== shownRequests) return;
  state.submission = shown;
  refreshResult();
}

function refreshResult() {
  const el = document.getElementById("result");
  if (el) el.replaceChildren(resultPanel());
}

function resultPanel() {
  const s = state.submission;
  if (!s) return h("span");
  const tests = submissionTests(s);
  const failing = tests.find((t) => t.verdict && t.verdict !== "AC");
  const selected = tests.find((t) => t.name === state.selectedTest) || failing;
  const judging = !s.verdict;
  const compile = s.compile && (s.compile.message || s.compile.output);
  const waiting = judging ? waitingState(s) : "done";
  return h("section", { class: "panel", id: "submission", "data-id": s.id, "data-verdict": s.verdict || "", "data-state": waiting },
    h("h2", {}, `Submission ${s.id} `, verdictBadge(s.verdict, true, waiting),
      judging ? h("span", { class: "hint", id: "submission-state" },
        waiting === "queued" ? " queued: waiting for a free judging engine…" : " judging…") : null),
    s.error ? h("p", { class: "error" }, s.error) : null,
    s.message ? h("p", { class: "error", id: "submission-message" }, s.message) : null,
    compile && s.verdict === "CE" ? h("pre", { class: "compile" }, compile) : null,
    tests.length
      ? h("table", { id: "tests" },
          h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, "Test"), h("th", {}, "Verdict"),
            h("th", { class: "num" }, "CPU time"), h("th", { class: "num" }, "Memory"), h("th", {}, "Message"))),
          h("tbody", {}, tests.map((t) =>
            h("tr", {
              class: "clickable" + (selected && t.name === selected.name ? " selected" : ""),
              "data-test": t.name, "data-verdict": t.verdict || "",
              onclick: () => { state.selectedTest = t.name; refreshResult(); },
            },
              h("td", { class: "num" }, t.index),
              h("td", { class: "mono" }, t.name),
              h("td", {}, verdictBadge(t.verdict)),
              h("td", { class: "num time" }, fmtMs(t.time_ms)),
              h("td", { class: "num memory" }, fmtKib(t.memory_kib)),
              h("td", { class: "msg" }, t.message || "",
                t.rejudged ? h("span", { class: "hint rejudged" },
                  `${t.message ? " · " : ""}judged again alone (beside other submissions: ${t.rejudged.verdict}, ${fmtMs(t.rejudged.time_ms)})`) : null))),
            judging ? pendingRows(tests.length) : null))
      : h("p", { class: "hint" }, judging ? (waiting === "queued" ? "Waiting for a free engine…" : "Compiling…") : "No tests were run."),
    selected && selected.verdict !== "AC" ? diffPanel(selected) : null,
    selected && selected.verdict === "AC" ? printedPanel(selected, s) : null,
    typeof s.source === "string" ? h("details", { class: "source" }, h("summary", {}, `Source${s.path ? " (" + s.path + ")" : ""}`), h("pre", {}, s.source)) : null,
  );
}

// While judging, a row for each test still to come (every test is judged, in order).
function pendingRows(done) {
  const total = state.problem && String(state.problem.id) === String(state.submission.problem) ? testCount(state.problem) : null;
  const rows = [];
  for (let i = done + 1; total !== null && i <= total; i++) {
    rows.push(h("tr", { class: "pending", "data-test": "", "data-verdict": "" },
      h("td", { class: "num" }, i), h("td", { class: "mono hint" }, i === done + 1 ? "running…" : ""),
      h("td", {}, verdictBadge(null)), h("td", { class: "num time" }, ""), h("td", { class: "num memory" }, ""), h("td", {}, "")));
  }
  return rows;
}

// ---------- the diff of a failing test ----------

const DIFF_CAP_LINES = 200;
const DIFF_CAP_CHARS = 200;

function diffPanel(t) {
  const m = t.mismatch;
  const parts = [h("h3", {}, `Test ${t.name}: `, verdictBadge(t.verdict))];
  if (t.message) parts.push(h("p", { class: "checker-message" }, "Checker: ", h("span", { class: "mono" }, t.message)));
  if (m && typeof m.diff === "string" && m.diff) {
    parts.push(h("p", { class: "where" }, `First difference at line ${m.line}, column ${m.column}: expected `,
      h("code", { class: "exp" }, m.expected), ", found ", h("code", { class: "fnd" }, m.found)));
    parts.push(windowDiff(m.diff));
  } else if (t.verdict === "WA" || t.verdict === "PE") {
    parts.push(h("p", { class: "hint" }, "The checker gave no line-by-line difference for this test."));
  }
  parts.push(printedPanel(t, state.submission));
  return h("div", { class: "diff", id: "diff", "data-test": t.name }, parts);
}

// ---------- what the program printed ----------

// The test's expected output (when the problem's preview has the test), the program's output
// beside it with the lines that differ marked, and its stderr below: the judge keeps the first
// 4 KiB of the output and the last 4 KiB of stderr.
function printedPanel(t, s) {
  if (!t.stdout && !t.stderr) return null;
  const p = state.problem;
  const samples = p && s && String(p.id) === String(s.problem) && Array.isArray(p.samples) ? p.samples : [];
  const sample = samples.find((x) => x.name === t.name);
  const expected = sample ? sample.output : null;
  const received = t.stdout ? t.stdout.text : null;
  const columns = [];
  if (expected !== null && received !== null) {
    columns.push(streamBox("Expected output", "expected", expected, sample.truncated, received));
  }
  if (received !== null) {
    columns.push(streamBox("Your output", "received", received, t.stdout.truncated, expected, "its first 4 KiB"));
  }
  return h("div", { class: "printed", id: "printed", "data-test": t.name },
    columns.length ? h("div", { class: "streams" }, columns) : null,
    t.stderr ? streamBox("Stderr", "stderr", t.stderr.text, t.stderr.truncated, null, "its last 4 KiB") : null);
}

// One stream as lines; a line that differs from the same line of `other` is marked.
function streamBox(title, id, text, cut, other, whenCut) {
  const lines = splitLines(text);
  const others = other === null || other === undefined ? null : splitLines(other);
  const rows = lines.slice(0, DIFF_CAP_LINES).map((line, i) =>
    h("span", { class: others && (others[i] ?? null) !== line ? "differs" : "" }, cap(line), "\n"));
  if (lines.length > DIFF_CAP_LINES) rows.push(h("span", { class: "capped" }, `… ${lines.length - DIFF_CAP_LINES} more lines`));
  return h("div", { class: "stream", id: `stream-${id}` },
    h("h4", {}, title, cut ? h("span", { class: "hint" }, ` (${whenCut || "cut"})`) : null),
    lines.length ? h("pre", {}, rows) : h("p", { class: "hint" }, "(empty)"));
}

function splitLines(text) {
  const lines = String(text).replace(/\r\n/g, "\n").split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

// The judge's own rendering of the window around the first difference (the same text as the
// terminal's): rows "expected N │ …" and "found N │ …", markers "^" under the differing token.
function windowDiff(text) {
  const lines = text.split("\n");
  const shown = lines.slice(0, DIFF_CAP_LINES).map((line) => {
    const bar = line.indexOf("│");
    const gutter = bar >= 0 ? line.slice(0, bar) : "";
    const rest = bar >= 0 ? line.slice(bar + 1) : line;
    let cls = "";
    if (/expected/.test(gutter)) cls = "exp";
    else if (/found/.test(gutter)) cls = "fnd";
    else if (/^\s*[v^]+\s*$/.test(rest) && rest.trim()) cls = "mark";
    return h("span", { class: cls }, cap(line), "\n");
  });
  if (lines.length > DIFF_CAP_LINES) shown.push(h("span", { class: "capped" }, `… ${lines.length - DIFF_CAP_LINES} more lines`));
  return h("pre", { class: "window" }, shown);
}

function cap(line) {
  return line.length > DIFF_CAP_CHARS ? line.slice(0, DIFF_CAP_CHARS) + " …" : line;
}

// ---------- history ----------

function historyPanel() {
  const rows = state.history.map((s) =>
    h("tr", { class: "clickable" + (state.submission && String(state.submission.id) === String(s.id) ? " selected" : ""),
      "data-id": s.id, "data-state": s.verdict ? "done" : waitingState(s),
      onclick: async () => { state.selectedTest = null; await showSubmission(s.id); renderProblem(); } },
      h("td", { class: "num" }, s.id),
      h("td", {}, fmtWhen(s.created_at ?? s.when ?? s.time)),
      h("td", {}, s.language || ""),
      h("td", { class: "mono" }, s.path || ""),
      h("td", {}, verdictBadge(s.verdict, false, s.verdict ? null : waitingState(s))),
      h("td", { class: "num" }, fmtMs(s.time_ms ?? maxOf(s.tests, "time_ms"))),
      h("td", { class: "num" }, fmtKib(s.memory_kib ?? maxOf(s.tests, "memory_kib")))));
  return h("section", { class: "panel", id: "history" }, h("h2", {}, "History"),
    rows.length
      ? h("table", {}, h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, "When"), h("th", {}, "Language"),
          h("th", {}, "File"), h("th", {}, "Verdict"), h("th", { class: "num" }, "Max time"), h("th", { class: "num" }, "Max memory"))),
          h("tbody", {}, rows))
      : h("p", { class: "hint" }, "No submissions yet."));
}

function maxOf(tests, key) {
  if (!Array.isArray(tests) || !tests.length) return null;
  return Math.max(...tests.map((t) => t[key] || 0));
}

// ---------- your own tests ----------

function testsPanel() {
  const input = h("textarea", { id: "own-input", placeholder: "input", class: "short" });
  const output = h("textarea", { id: "own-output", placeholder: "expected output (empty: any output the checker accepts is fine)", class: "short" });
  const status = h("span", { class: "hint", id: "add-test-status" });
  const own = samplesOf(state.problem).filter((t) => t.custom);
  return h("section", { class: "panel", id: "own-tests" }, h("h2", {}, "Your tests"),
    own.length
      ? h("ul", { id: "custom-tests" }, own.map((t) => h("li", {}, h("span", { class: "mono" }, t.name), " ",
          h("button", { type: "button", onclick: async () => {
            try {
              await api("DELETE", `/api/problems/${encodeURIComponent(state.problem.id)}/tests/${encodeURIComponent(t.name)}`);
              state.problem = await api("GET", `/api/problems/${encodeURIComponent(state.problem.id)}`);
              renderProblem();
            } catch (e) {
              status.className = "error";
              status.textContent = e.message;
            }
          } }, "remove"))))
      : h("p", { class: "hint" }, "Tests you add are judged with the samples on every submission."),
    h("div", { class: "samples" }, h("h3", {}, "Input"), h("h3", {}, "Expected output"), input, output),
    h("div", { class: "row" },
      h("button", { type: "button", id: "add-test", onclick: async (ev) => {
        await addTest(ev.target, status, input.value, output.value);
      } }, "Add test"), status),
    importRow());
}

// Import many tests at once: NAME.in with NAME.ans (or NAME.out), as files, a folder or a .zip
// picked here, or a folder or .zip on this machine by its path.
function importRow() {
  // The last import's outcome survives the redraws that the import itself causes.
  const last = state.importStatus && String(state.importStatus.problem) === String(state.problem.id) ? state.importStatus : null;
  const status = h("span", { class: last ? last.cls : "hint", id: "import-status" }, last ? last.text : "");
  const files = h("input", { type: "file", id: "import-files", multiple: true, accept: ".in,.out,.ans,.zip" });
  const folder = h("input", { type: "file", id: "import-folder", webkitdirectory: true });
  const path = h("input", { type: "text", id: "import-path", placeholder: "/home/you/tests or /home/you/tests.zip" });
  const picked = async (ev) => {
    const list = [...ev.target.files];
    ev.target.value = "";
    if (!list.length) return;
    try {
      if (list.length === 1 && /\.zip$/i.test(list[0].name)) {
        await importTests({ zip: await base64Of(list[0]) });
      } else {
        const sent = await Promise.all(list.map(async (f) => ({ name: f.webkitRelativePath || f.name, text: await f.text() })));
        await importTests({ files: sent });
      }
    } catch (e) {
      importStatus(e.message, "error");
    }
  };
  files.addEventListener("change", picked);
  folder.addEventListener("change", picked);
  return h("div", { class: "import", id: "import" },
    h("h3", {}, "Import tests"),
    h("p", { class: "hint" }, "Each NAME.in with NAME.ans (or NAME.out) beside it becomes a test; anything else is skipped."),
    h("div", { class: "row" }, h("label", {}, "Files or a .zip ", files), h("label", {}, "A folder ", folder)),
    h("div", { class: "row" }, path,
      h("button", { type: "button", id: "import-path-button", onclick: async () => {
        if (!path.value.trim()) return importStatus("Give the absolute path of a folder or a .zip.", "error");
        await importTests({ path: path.value.trim() }).catch((e) => importStatus(e.message, "error"));
      } }, "Import"), status));
}

function importStatus(text, cls) {
  state.importStatus = { problem: state.problem && state.problem.id, text, cls };
  setStatus("import-status", text, cls);
}

// A file's bytes as base64 (what `zip` carries).
function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(new Error(`cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

async function importTests(what) {
  importStatus("Importing…", "hint");
  const res = await api("POST", `/api/problems/${encodeURIComponent(state.problem.id)}/tests/import`, what);
  const detail = await api("GET", `/api/problems/${encodeURIComponent(state.problem.id)}`).catch(() => null);
  if (detail) state.problem = detail;
  loadProblems();
  renderProblem();
  const added = (res && res.added) || [];
  const skipped = (res && res.skipped) || [];
  importStatus(
    `Imported ${added.length} test${added.length === 1 ? "" : "s"}` + (skipped.length ? ` (skipped: ${skipped.join(", ")})` : "") + ".", "ok");
}

async function addTest(button, status, input, output) {
  if (!input.trim()) {
    status.textContent = "The input is empty.";
    return;
  }
  button.disabled = true;
  try {
    const res = await api("POST", `/api/problems/${encodeURIComponent(state.problem.id)}/tests`, { input, output });
    status.className = "ok";
    const detail = await api("GET", `/api/problems/${encodeURIComponent(state.problem.id)}`).catch(() => null);
    if (detail) state.problem = detail;
    loadProblems();
    renderProblem();
    setStatus("add-test-status", `Added test ${res && res.name ? res.name : ""}`.trim() + ".", "ok");
  } catch (e) {
    status.className = "error";
    status.textContent = e.message;
  } finally {
    button.disabled = false;
  }
}

// ---------- stress ----------

function stressPanel() {
  const gen = h("input", { type: "text", id: "stress-gen", placeholder: "generator source, e.g. /home/you/gen.py (prints one input; gets a seed as its argument)", value: state.stressGen || "" });
  const brute = h("input", { type: "text", id: "stress-brute", placeholder: "brute-force source, e.g. /home/you/brute.cpp", value: state.stressBrute || "" });
  const solution = h("input", { type: "text", id: "stress-solution", placeholder: "your solution's path (empty: the last one submitted)", value: state.stressSolution || "" });
  const args = h("input", { type: "text", id: "stress-args", value: state.stressArgs || "{seed} {size}", class: "args" });
  const seconds = h("input", { type: "number", id: "stress-seconds", value: state.stressSeconds || 10, min: 1, max: 600, class: "narrow" });
  const status = h("span", { class: "hint", id: "stress-status" });
  const found = state.stress && (state.stress.found || state.stress.counterexample);
  return h("section", { class: "panel", id: "stress" }, h("h2", {}, "Stress test"),
    h("p", { class: "hint" }, "Runs generated inputs through your solution and a brute force until they disagree, then shrinks the input."),
    h("div", { class: "row" }, "Generator ", gen, "arguments ", args),
    h("div", { class: "row" }, "Brute force ", brute),
    h("div", { class: "row" }, "Solution ", solution),
    h("div", { class: "row" }, "Seconds ", seconds,
      h("button", { type: "button", id: "stress-run", class: "primary", onclick: async (ev) => {
        state.stressGen = gen.value.trim();
        state.stressBrute = brute.value.trim();
        state.stressSolution = solution.value.trim();
        state.stressSeconds = Number(seconds.value) || 10;
        state.stressArgs = args.value.trim() || "{seed} {size}";
        await runStress(ev.target, status);
      } }, "Stress"), status),
    state.stress && state.stress.state === "failed"
      ? h("p", { class: "error" }, state.stress.error || "The stress run failed.")
      : state.stress && state.stress.state !== "done" && state.stress.state !== undefined
      ? h("p", { class: "hint" }, `Still ${state.stress.state}…`)
      : state.stress
      ? found
        ? h("div", { id: "counterexample" },
            h("p", {}, "Counterexample", found.verdict ? [" (", verdictBadge(found.verdict), ")"] : "", ":"),
            h("div", { class: "samples three" }, h("h3", {}, "Input"), h("h3", {}, "Brute force's answer"), h("h3", {}, "Your output"),
              h("pre", {}, found.input ?? ""), h("pre", {}, found.answer ?? found.expected ?? ""), h("pre", {}, found.output ?? "")),
            found.tries != null ? h("p", { class: "hint" }, `Found after ${found.tries} inputs; ${found.shrink_steps ?? 0} shrinking steps made it smaller.`) : null,
            found.message ? h("p", { class: "mono" }, found.message) : null,
            h("button", { type: "button", id: "stress-add", onclick: async (ev) => {
              await addTest(ev.target, status, found.input ?? "", found.answer ?? found.expected ?? "");
            } }, "Add the counterexample as a test"))
        : h("p", { class: "ok" }, state.stress.message || `No difference found in ${state.stress.seconds ?? state.stressSeconds} s.`)
      : null);
}

async function runStress(button, status) {
  const body = { problem: state.problem.id, generator: state.stressGen, brute: state.stressBrute, seconds: state.stressSeconds, args: state.stressArgs };
  if (state.stressSolution) body.path = state.stressSolution;
  else if (state.lastSource) Object.assign(body, state.lastSource);
  else if (state.watchPath) body.path = state.watchPath;
  button.disabled = true;
  status.className = "hint";
  status.textContent = "Stressing…";
  try {
    state.stress = await api("POST", "/api/stress", body);
    status.textContent = "";
    renderProblem();
  } catch (e) {
    status.className = "error";
    status.textContent = e.message;
  } finally {
    button.disabled = false;
  }
}


// ---------- interactive problems: the interactor, the console, saved exchanges ----------

function interactivePanel() {
  const p = state.problem;
  const status = h("span", { class: "hint", id: "interactor-status" });
  const path = h("input", { type: "text", id: "interactor-path", placeholder: "/home/you/interactor.cpp", value: state.interactorPath || "" });
  const helpers = h("input", { type: "text", id: "interactor-helpers", placeholder: "helper files, space-separated (e.g. /home/you/testlib.h)", value: state.interactorHelpers || "" });
  const protocol = h("select", { id: "interactor-protocol" },
    h("option", { value: "kattis", selected: state.interactorProtocol !== "testlib" }, "Kattis (exit 42 accepts, 43 rejects)"),
    h("option", { value: "testlib", selected: state.interactorProtocol === "testlib" }, "testlib (exit 0 OK, 1 WA, 2 PE, 3 fail)"));
  const attached = p.interactor
    ? h("p", { id: "interactor-attached" }, "Interactor attached: ", h("span", { class: "mono" }, p.interactor.file),
        ` (${p.interactor.protocol}); submissions are judged against it. `,
        h("button", { type: "button", id: "interactor-detach", onclick: async () => {
          try {
            await api("DELETE", `/api/problems/${encodeURIComponent(p.id)}/interactor`);
            await openProblem(p.id);
          } catch (e) { setStatus("interactor-status", e.message, "error"); }
        } }, "Detach"))
    : h("p", { class: "hint", id: "interactor-none" }, "No interactor: submissions are not judged. Attach one, or play the judge's side yourself in the console below.");
  return h("section", { class: "panel", id: "interactive" }, h("h2", {}, "Interactive problem"),
    attached,
    h("div", { class: "row" }, "Interactor ", path, protocol),
    h("div", { class: "row" }, "Helpers ", helpers,
      h("button", { type: "button", id: "interactor-attach", class: "primary", onclick: async (ev) => {
        state.interactorPath = path.value.trim();
        state.interactorHelpers = helpers.value.trim();
        state.interactorProtocol = protocol.value;
        ev.target.disabled = true;
        try {
          const body = { path: state.interactorPath, protocol: state.interactorProtocol,
            helpers: state.interactorHelpers ? state.interactorHelpers.split(/\s+/) : [] };
          await api("POST", `/api/problems/${encodeURIComponent(p.id)}/interactor`, body);
          await openProblem(p.id);
        } catch (e) {
          setStatus("interactor-status", e.message, "error");
        } finally {
          ev.target.disabled = false;
        }
      } }, "Attach"), status),
    consolePanel());
}

// The console: the contestant is the judge. Lines typed go to the program; its lines arrive
// as console_line events.
function consoleLineEl(l) {
  const mark = l.side === "sent" ? "<" : l.side === "received" ? ">" : "!";
  return h("div", { class: `cline ${l.side}` },
    h("span", { class: "at" }, `${l.at_ms} ms`), h("span", { class: "mark" }, mark),
    h("span", { class: "text" }, l.text + (l.cut ? " [cut]" : "")));
}

function consoleEndText(c) {
  const e = c && c.ended;
  if (!e) return c ? `Console ${c.id}: ${c.state}…` : "";
  const how = e.stopped ? `stopped (${e.stopped})` : e.verdict ? `${e.verdict} (${e.message || ""})` : `${e.exit || "exit code 0"}`;
  const times = e.cpu_ms !== undefined ? ` — CPU ${e.cpu_ms} ms, wall ${e.wall_ms} ms` : "";
  return `Ended: ${how}${times}`;
}

function consolePanel() {
  const p = state.problem;
  const c = state.console && String(state.console.problem) === String(p.id) ? state.console : null;
  const path = h("input", { type: "text", id: "console-path", placeholder: "your solution's path, e.g. /home/you/a.cpp", value: state.consolePath || "" });
  const status = h("span", { class: "hint", id: "console-status" }, consoleEndText(c));
  const log = h("div", { id: "console-log", class: "console-log" }, c ? c.lines.map(consoleLineEl) : []);
  const running = c && !c.ended;
  const line = h("input", { type: "text", id: "console-input", placeholder: "a line to the program (Enter sends)", disabled: running && !c.closed ? null : "" });
  const send = async () => {
    const text = line.value;
    line.value = "";
    try {
      await api("POST", `/api/console/${c.id}/send`, { line: text });
    } catch (e) { setStatus("console-status", e.message, "error"); }
  };
  line.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); send(); } });
  const action = (id, label, what, enabled) => h("button", { type: "button", id, disabled: enabled ? null : "", onclick: async () => {
    try {
      const r = await api("POST", `/api/console/${c.id}/${what}`, {});
      if (what === "close") { c.closed = true; renderProblem(); }
      if (what === "save") { setStatus("console-status", `Saved as ${r.name}.`, "ok"); await openProblem(p.id); }
    } catch (e) { setStatus("console-status", e.message, "error"); }
  } }, label);
  const saved = (p.interactions || []);
  return h("div", { id: "console" }, h("h3", {}, "Console: you are the judge"),
    h("p", { class: "hint" }, "The program runs in the sandbox with the problem's CPU time and memory limits (10 minutes of wall clock at most, 5 without a line sent). Blue lines are what you sent, green what it printed, grey its stderr; the times are since it started."),
    h("div", { class: "row" }, "Solution ", path,
      h("button", { type: "button", id: "console-start", class: "primary", onclick: async (ev) => {
        state.consolePath = path.value.trim();
        ev.target.disabled = true;
        try {
          const body = { problem: p.id };
          if (state.consolePath) body.path = state.consolePath;
          else if (state.lastSource) Object.assign(body, state.lastSource);
          const r = await api("POST", "/api/console", body);
          state.console = { id: r.id, problem: p.id, state: "queued", lines: [], ended: null };
          renderProblem();
          const input = document.getElementById("console-input");
          if (input) input.focus();
        } catch (e) {
          setStatus("console-status", e.message, "error");
        } finally {
          ev.target.disabled = false;
        }
      } }, "Start"), status),
    log,
    h("div", { class: "row" }, line, h("button", { type: "button", id: "console-send", disabled: running ? null : "", onclick: send }, "Send"),
      action("console-close", "Close its input", "close", running && !c.closed),
      action("console-stop", "Stop", "stop", running),
      action("console-save", "Save the exchange", "save", c && c.lines.length > 0)),
    saved.length
      ? h("div", { id: "interactions" }, h("h3", {}, "Saved exchanges"),
          h("ul", {}, saved.map((name) => h("li", {}, h("span", { class: "mono" }, `${name}.interaction`), " ",
            h("button", { type: "button", "data-replay": name, onclick: async (ev) => {
              ev.target.disabled = true;
              const body = {};
              if (path.value.trim()) body.path = path.value.trim();
              else if (state.lastSource) Object.assign(body, state.lastSource);
              try {
                const r = await api("POST", `/api/problems/${encodeURIComponent(p.id)}/interactions/${encodeURIComponent(name)}/replay`, body);
                setStatus("console-status", r.same ? `Replay of ${name}: the same exchange (${r.lines} lines).` : `Replay of ${name} differs: ${r.message}`, r.same ? "ok" : "error");
              } catch (e) { setStatus("console-status", e.message, "error"); }
              finally { ev.target.disabled = false; }
            } }, "Replay")))))
      : null);
}

// The open console's state as the server has it (after a reconnect, or an event lost when the
// stream fell behind): the page's copy is replaced when it differs.
async function resyncConsole() {
  const c = state.console;
  if (!c) return;
  let now;
  try {
    now = await api("GET", `/api/console/${c.id}`);
  } catch (_) {
    return;
  }
  if (state.console !== c) return;
  if (now.lines.length === c.lines.length && now.state === c.state) return;
  c.lines = now.lines;
  c.state = now.state;
  c.ended = now.ended;
  if (state.problem && String(state.problem.id) === String(c.problem)) renderProblem();
}

function onConsoleEvent(ev) {
  const c = state.console;
  if (!c || String(ev.console) !== String(c.id)) return;
  if (ev.event === "console_line" && ev.line) {
    // Already read back by a resync; or some were missed: read them all back.
    if (typeof ev.n === "number" && ev.n < c.lines.length) return;
    if (typeof ev.n === "number" && ev.n > c.lines.length) { resyncConsole(); return; }
    c.lines.push(ev.line);
    const log = document.getElementById("console-log");
    if (log) {
      log.append(consoleLineEl(ev.line));
      log.scrollTop = log.scrollHeight;
    }
    const save = document.getElementById("console-save");
    if (save) save.disabled = false;
  } else if (ev.event === "console_state") {
    c.state = ev.state;
    if (ev.ended) {
      c.ended = ev.ended;
      // Every line was published before this: the page's copy is checked once more.
      resyncConsole();
    }
    if (ev.state === "running" || ev.ended) {
      const focused = document.activeElement && document.activeElement.id === "console-input";
      renderProblem();
      const input = document.getElementById("console-input");
      if (focused && input && !input.disabled) input.focus();
    } else {
      setStatus("console-status", consoleEndText(c), "hint");
    }
  }
}

// ---------- compare solutions ----------

function comparePanel() {
  const p = state.problem;
  const paths = h("textarea", { id: "compare-paths", class: "paths", spellcheck: "false", rows: 3, placeholder: "one source path a line, e.g.\n/home/you/brute.py\n/home/you/fast.cpp" });
  paths.value = state.comparePaths || "";
  const status = h("span", { class: "hint", id: "compare-status" });
  const m = state.compare && String(state.compare.problem) === String(p.id) ? state.compare : null;
  let matrix = null;
  if (m) {
    matrix = h("div", { id: "compare-result" },
      h("table", { id: "compare-matrix", class: "matrix" },
        h("thead", {}, h("tr", {}, h("th", {}, "Solution"), h("th", {}, "Verdict"), m.tests.map((t) => h("th", {}, t)))),
        h("tbody", {}, m.solutions.map((s) => h("tr", {},
          h("td", { class: "mono" }, s.name),
          h("td", {}, verdictBadge(s.verdict)),
          s.tests.map((r) => h("td", {},
            r.verdict ? h("span", { class: verdictClass(r.verdict) }, `${r.verdict} ${r.time_ms} ms`) : "—")))))),
      m.solutions.filter((s) => s.compile_error || s.error).map((s) =>
        h("pre", { class: "error" }, `${s.name}: ${s.compile_error || s.error}`)),
      m.differences.length
        ? h("div", { id: "compare-diffs" }, h("h3", {}, "Where the outputs differ"),
            m.differences.map((d) => h("div", { class: "compare-diff" },
              h("p", {}, `Test ${d.test}, line ${d.line}:`),
              h("ul", {}, m.solutions.map((s, i) => h("li", {}, h("span", { class: "mono" }, s.name), ": ",
                d.outputs[i] === null ? h("em", {}, "(no such line)") : h("code", {}, d.outputs[i])))))))
        : h("p", { class: "ok", id: "compare-same" }, "Their outputs agree on every test."));
  }
  return h("section", { class: "panel", id: "compare" }, h("h2", {}, "Compare solutions"),
    h("p", { class: "hint" }, "Judges each file on every test, one after the other, and shows where their outputs part."),
    paths,
    h("div", { class: "row" }, h("button", { type: "button", id: "compare-run", class: "primary", onclick: async (ev) => {
      state.comparePaths = paths.value;
      const solutions = paths.value.split("\n").map((l) => l.trim()).filter((l) => l);
      ev.target.disabled = true;
      status.className = "hint";
      status.textContent = "Judging…";
      try {
        state.compare = await api("POST", "/api/compare", { problem: p.id, solutions });
        renderProblem();
      } catch (e) {
        status.className = "error";
        status.textContent = e.message;
      } finally {
        ev.target.disabled = false;
      }
    } }, "Compare"), status),
    matrix);
}

// ---------- contests ----------

async function loadContests() {
  try {
    const list = await api("GET", "/api/contests");
    state.contests = Array.isArray(list) ? list : [];
    noteServerClock(state.contests[0]);
  } catch (_) {
    state.contests = [];
  }
}

// The end of contest `c` in this browser's clock (milliseconds), or null. The server's `now`
// (sent with every contest) corrects for a clock that differs from the browser's.
function contestEnd(c) {
  let end = c.end_at ?? null;
  if (end == null) {
    const start = c.start_at ?? c.started_at ?? c.start;
    if (start == null || c.duration_min == null) return null;
    const ms = typeof start === "number" ? (start < 1e12 ? start * 1000 : start) : Date.parse(start);
    if (isNaN(ms)) return null;
    end = ms + c.duration_min * 60000;
  }
  if (typeof end === "string") end = Date.parse(end);
  return end - (state.clockOffset || 0);
}

function noteServerClock(c) {
  if (c && typeof c.now === "number") state.clockOffset = c.now - Date.now();
}

async function renderContests() {
  await loadContests();
  const byGroup = new Map();
  for (const p of state.problems) {
    const g = p.group || "(no group)";
    if (!byGroup.has(g)) byGroup.set(g, []);
    byGroup.get(g).push(p);
  }
  const name = h("input", { type: "text", id: "contest-name", placeholder: "name", value: "Virtual contest" });
  const duration = h("input", { type: "number", id: "contest-duration", value: 120, min: 1, class: "narrow" });
  const freeze = h("input", { type: "number", id: "contest-freeze", value: 0, min: 0, class: "narrow" });
  const boxes = h("div", { class: "pick" },
    [...byGroup].map(([g, ps]) => [
      h("label", {}, h("b", {}, g), " ",
        h("button", { type: "button", onclick: () => {
          for (const p of ps) document.getElementById("pick-" + p.id).checked = true;
          if (name.value === "Virtual contest") name.value = g;
        } }, "whole batch")),
      ps.map((p) => h("label", {}, h("input", { type: "checkbox", id: "pick-" + p.id, value: p.id }), " ", p.name || p.id)),
    ]));
  const status = h("span", { class: "hint" });
  setMain(
    h("h1", {}, "Virtual contests"),
    state.contests.length
      ? h("table", { id: "contests" }, h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Problems"), h("th", {}, "Duration"), h("th", {}, "State"), h("th", {}, "Ends"))),
          h("tbody", {}, state.contests.map((c) => {
            const end = contestEnd(c);
            return h("tr", { class: "clickable", onclick: () => (location.hash = `#/c/${encodeURIComponent(c.id)}`) },
              h("td", {}, h("a", { href: `#/c/${encodeURIComponent(c.id)}` }, c.name || c.id)),
              h("td", {}, Array.isArray(c.problems) ? c.problems.length : ""),
              h("td", {}, c.duration_min != null ? c.duration_min + " min" : ""),
              h("td", {}, (c.state || "").replace("_", " ")),
              h("td", {}, end ? new Date(end).toLocaleString() : ""));
          })))
      : h("p", { class: "hint" }, "No contests yet."),
    h("section", { class: "panel", id: "new-contest" }, h("h2", {}, "Start a virtual contest"),
      h("div", { class: "row" }, "Name ", name, "Duration (minutes) ", duration, "Freeze the last (minutes) ", freeze),
      state.problems.length ? boxes : h("p", { class: "hint" }, "Receive some problems first."),
      h("div", { class: "row" }, h("button", { class: "primary", type: "button", id: "contest-start", onclick: async (ev) => {
        const problems = [...boxes.querySelectorAll("input:checked")].map((b) => {
          const p = state.problems.find((x) => String(x.id) === b.value);
          return p ? p.id : b.value;
        });
        if (!problems.length) {
          status.textContent = "Pick at least one problem.";
          return;
        }
        ev.target.disabled = true;
        try {
          const body = { name: name.value.trim() || "Virtual contest", problems, duration_min: Number(duration.value) || 120 };
          if (Number(freeze.value) > 0) body.freeze_min = Number(freeze.value);
          const res = await api("POST", "/api/contests", body);
          location.hash = `#/c/${encodeURIComponent(res.id)}`;
        } catch (e) {
          status.className = "error";
          status.textContent = e.message;
        } finally {
          ev.target.disabled = false;
        }
      } }, "Start"), status)));
}

async function openContest(id) {
  const board = await api("GET", `/api/contests/${encodeURIComponent(id)}/scoreboard`);
  await loadContests();
  state.contest = board.contest || state.contests.find((c) => String(c.id) === String(id)) || { id };
  noteServerClock(state.contest);
  state.scoreboard = board;
  renderContest();
}

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
// "A. Sum", without doubling a label the name already starts with (Codeforces names do).
const labelled = (l, name) => (String(name).startsWith(l + ".") || String(name).startsWith(l + " ") ? String(name) : `${l}. ${name}`);
const label = (p, i) => (typeof p === "object" && p.label) || LETTERS[i] || String(i + 1);

// The scoreboard: one row per contestant (locally usually one), a cell per problem with its
// attempts and the minute of the accepted one, then solved and penalty.
function renderContest() {
  const c = state.contest;
  const b = state.scoreboard || {};
  const problems = b.problems || c.problems || [];
  const problemId = (p) => (typeof p === "object" ? p.id ?? p.problem : p);
  const problemName = (p) => {
    const id = problemId(p);
    return (typeof p === "object" && p.name) || state.problems.find((x) => String(x.id) === String(id))?.name || id;
  };
  const rows = b.rows || b.teams || (b.solved !== undefined ? [b] : []);
  const cell = (row, p, i) => {
    const list = row.problems || row.cells || [];
    const r = list.find((x) => typeof x === "object" && String(x.problem ?? x.id) === String(problemId(p))) || {};
    const rejected = r.rejected ?? r.attempts ?? 0;
    const minute = r.time_min ?? r.solved_at_min;
    const extra = [];
    if (r.pending) extra.push(h("small", {}, `${r.pending} judging`));
    if (r.frozen) extra.push(h("small", {}, `${r.frozen} frozen`));
    if (r.solved) return h("td", { class: "solved", "data-problem": problemId(p) }, "+" + (rejected || ""), h("small", {}, minute != null ? `${minute} min` : ""), extra);
    if (rejected || r.pending || r.frozen) return h("td", { class: "tried", "data-problem": problemId(p) }, rejected ? "−" + rejected : "?", extra);
    return h("td", { "data-problem": problemId(p) }, "");
  };
  const end = contestEnd(c);
  setMain(
    h("h1", { id: "contest-name" }, c.name || `Contest ${c.id}`),
    h("div", { class: "meta" },
      c.duration_min != null ? h("span", {}, `${c.duration_min} min`) : null,
      end ? h("span", {}, "ends ", new Date(end).toLocaleTimeString()) : null,
      b.state ? h("span", { id: "contest-state" }, b.state) : null,
      b.elapsed_min != null ? h("span", {}, `minute ${b.elapsed_min}`) : null,
      c.freeze_min ? h("span", {}, `frozen for the last ${c.freeze_min} min`) : null,
      c.penalty_min ? h("span", {}, `${c.penalty_min} min per rejected attempt`) : h("span", {}, "ICPC rules: 20 min per rejected attempt before the accepted one; compile errors are free")),
    (b.state || c.state) === "not_started" ? startForm(c) : null,
    h("p", { class: "contest-problems" }, problems.map((p, i) =>
      h("a", { href: `#/p/${encodeURIComponent(problemId(p))}` }, labelled(label(p, i), problemName(p))))),
    h("table", { class: "scoreboard", id: "scoreboard" },
      h("thead", {}, h("tr", {}, h("th", { class: "name" }, "Who"), problems.map((p, i) => h("th", { title: problemName(p) }, label(p, i))),
        h("th", {}, "Solved"), h("th", {}, "Penalty"))),
      h("tbody", {}, rows.map((row) =>
        h("tr", {}, h("td", { class: "name" }, row.name || "you"), problems.map((p, i) => cell(row, p, i)),
          h("td", { class: "total-solved" }, row.solved ?? 0), h("td", { class: "total-penalty" }, row.penalty_min ?? row.penalty ?? 0))))),
  );
  state.clockContest = c;
  tickClock();
}

// A contest made from a competitive-companion batch waits for its start.
function startForm(c) {
  const duration = h("input", { type: "number", id: "start-duration", value: c.duration_min || 120, min: 1, class: "narrow" });
  const freeze = h("input", { type: "number", id: "start-freeze", value: c.freeze_min || 0, min: 0, class: "narrow" });
  const status = h("span", { class: "hint" });
  return h("section", { class: "panel", id: "start-contest" },
    h("p", {}, "This contest has not started. The timer and the scoreboard begin when you start it."),
    h("div", { class: "row" }, "Duration (minutes) ", duration, "Freeze the last (minutes) ", freeze,
      h("button", { class: "primary", type: "button", id: "contest-begin", onclick: async (ev) => {
        ev.target.disabled = true;
        try {
          const body = { duration_min: Number(duration.value) || 120 };
          if (Number(freeze.value) > 0) body.freeze_min = Number(freeze.value);
          await api("POST", `/api/contests/${encodeURIComponent(c.id)}/start`, body);
          await openContest(c.id);
        } catch (e) {
          status.className = "error";
          status.textContent = e.message;
          ev.target.disabled = false;
        }
      } }, "Start now"), status));
}

// The header clock: the time left in the contest last opened (or running).
function tickClock() {
  const clock = $("#clock");
  const c = state.clockContest;
  const end = c && contestEnd(c);
  if (!end) {
    clock.hidden = true;
    return;
  }
  const left = Math.max(0, end - Date.now());
  const s = Math.floor(left / 1000);
  const pad = (n) => String(n).padStart(2, "0");
  clock.hidden = false;
  clock.textContent = left > 0 ? `${c.name || "contest"} ${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}` : `${c.name || "contest"} over`;
}

// ---------- live updates ----------

let refreshTimer = null;

// Re-reads what may have changed, at most every 150 ms, however many events arrive.
function scheduleRefresh(what) {
  state.pending = Object.assign(state.pending || {}, what);
  if (refreshTimer) return;
  refreshTimer = setTimeout(async () => {
    refreshTimer = null;
    const p = state.pending;
    state.pending = {};
    if (p.problems) await loadProblems();
    if (p.meta && state.problem && !p.detail) {
      const detail = await api("GET", `/api/problems/${encodeURIComponent(state.problem.id)}`).catch(() => null);
      const el = document.getElementById("problem-meta");
      if (detail && state.problem && String(detail.id) === String(state.problem.id) && el) {
        state.problem = detail;
        el.replaceWith(metaLine(detail));
      }
    }
    if (p.detail && state.problem) {
      const detail = await api("GET", `/api/problems/${encodeURIComponent(state.problem.id)}`).catch(() => null);
      if (detail && state.problem && String(detail.id) === String(state.problem.id)) {
        state.problem = detail;
        renderProblem();
      }
    }
    if (p.submission && state.submission) {
      await showSubmission(state.submission.id);
      if (state.submission.verdict) {
        await loadHistory();
        const hist = document.getElementById("history");
        if (hist) hist.replaceWith(historyPanel());
      }
    }
    if (p.history && state.route.view === "problem") {
      await loadHistory();
      const hist = document.getElementById("history");
      if (hist) hist.replaceWith(historyPanel());
    }
    if (p.contest && state.route.view === "contest") await openContest(state.route.id);
    if (p.contest && state.route.view === "contests") await renderContests();
  }, 150);
}

// One Server-Sent Event of the judge (the book's "The practice page": the engine's events with the
// submission's id added, and the server's own).
function onEvent(data) {
  let ev;
  try {
    ev = JSON.parse(data);
  } catch (_) {
    return;
  }
  const kind = ev.event || "";
  const current = state.submission && String(ev.submission) === String(state.submission.id);
  const here = state.problem && String(ev.problem) === String(state.problem.id);
  switch (kind) {
    case "problem_received":
    case "problem_changed":
      scheduleRefresh({ problems: true, detail: here });
      break;
    case "receive_failed":
      showBanner("A problem from competitive-companion could not be stored: " + (ev.message || ""));
      break;
    case "contest_created":
    case "contest_started":
      scheduleRefresh({ contest: true });
      break;
    case "submission_queued":
    case "watch_submitted":
      // A watched file was saved: its new submission of the open problem is shown.
      if (here && (kind === "watch_submitted" || ev.path) && ev.submission !== undefined
          && (!state.submission || String(ev.submission) !== String(state.submission.id))) {
        state.submission = { id: ev.submission, problem: ev.problem, verdict: null, tests: [] };
        state.selectedTest = null;
        refreshResult();
        scheduleRefresh({ submission: true });
      }
      if (here) scheduleRefresh({ history: true });
      break;
    case "watch_failed":
      if (here) setStatus("submit-status", ev.message || "the watched file could not be read", "error");
      break;
    case "submission_started":
      // An engine took it: queued → judging.
      if (current) scheduleRefresh({ submission: true });
      if (here) scheduleRefresh({ history: true });
      break;
    case "submission_finished":
      if (current) scheduleRefresh({ submission: true });
      scheduleRefresh({ history: here, problems: true, contest: true, meta: here || current });
      break;
    case "console_line":
    case "console_state":
      onConsoleEvent(ev);
      break;
    case "stress_progress":
      setStatus("stress-status", ev.message || "", "hint");
      break;
    default:
      // The engine's events about a submission (compile, tests, verdict).
      if (current) scheduleRefresh({ submission: true });
  }
}

function setStatus(id, text, cls) {
  const el = document.getElementById(id);
  if (!el) return;
  el.className = cls;
  el.textContent = text;
}

function connectEvents() {
  const live = $("#live");
  let es;
  try {
    es = new EventSource("/api/events", { withCredentials: true });
  } catch (_) {
    return;
  }
  es.onopen = () => {
    live.textContent = "live";
    live.classList.add("on");
    // Lines sent while the stream was down are read back whole.
    resyncConsole();
  };
  es.onerror = () => {
    live.textContent = "reconnecting…";
    live.classList.remove("on");
  };
  es.onmessage = (e) => onEvent(e.data);
}

// A slow poll as well, so that nothing depends on an event arriving: the problem list every 2 s
// while the tab is visible, a submission being judged every second.
function poll() {
  setInterval(() => {
    if (document.hidden) return;
    if (state.submission && !state.submission.verdict && !state.submission.error) scheduleRefresh({ submission: true });
  }, 1000);
  setInterval(() => {
    if (!document.hidden) scheduleRefresh({ problems: true });
    if (!document.hidden && state.console && !state.console.ended) resyncConsole();
  }, 2000);
  setInterval(tickClock, 1000);
}

// ---------- start ----------

window.addEventListener("hashchange", route);
async function loadLanguages() {
  try {
    const list = await api("GET", "/api/languages");
    const names = (Array.isArray(list) ? list : []).map((l) => (typeof l === "string" ? l : l.name)).filter(Boolean);
    if (names.length) state.languages = names;
  } catch (_) {
    /* the built-in four */
  }
}

(async () => {
  await loadProblems();
  await loadContests();
  await loadLanguages();
  const running = state.contests.find((c) => c.state === "running" || c.state === "frozen");
  if (running) state.clockContest = running;
  tickClock();
  await route();
  connectEvents();
  poll();
})();
