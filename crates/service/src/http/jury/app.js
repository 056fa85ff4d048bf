// The jury page: the queue, the workers and the submissions of `judge serve`, live. Every
// request carries the organiser token (pasted once, kept in this tab's session storage, or
// given in the address as #token=…, which is then removed from it). Text from the API is
// only ever set as text, never parsed as HTML.
"use strict";

const $ = (selector) => document.querySelector(selector);
let token = null;
let selected = null;
let streamAbort = null;

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}

async function api(path, options = {}) {
  const answer = await fetch(path, {
    ...options,
    headers: { Authorization: `Bearer ${token}`, ...(options.headers || {}) },
  });
  const body = answer.status === 204 ? null : await answer.json().catch(() => null);
  if (!answer.ok) {
    const reason = body && body.detail ? body.detail : `${answer.status}`;
    const error = new Error(reason);
    error.status = answer.status;
    throw error;
  }
  return body;
}

function ms(value) {
  return value === null || value === undefined ? "" : `${value} ms`;
}

function kib(value) {
  return value === null || value === undefined ? "" : `${value} KiB`;
}

function ago(millis) {
  if (millis < 1000) return "just now";
  const s = Math.round(millis / 1000);
  return s < 120 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}

// The counts, from the latest read started: an older read that answers late is dropped.
let queueReads = 0;
let queueShown = 0;

async function readQueue() {
  const read = ++queueReads;
  const queue = await api("/api/v1/queue");
  return () => {
    if (read < queueShown) return;
    queueShown = read;
    renderQueue(queue);
  };
}

async function showQueue() {
  (await readQueue())();
}

function renderQueue(queue) {
  $("#queued").textContent = queue.queued;
  $("#judging").textContent = queue.judging;
  $("#done").textContent = queue.done;
  $("#oldest").textContent = queue.oldest_queued_at
    ? `· the oldest queued since ${queue.oldest_queued_at}` : "";
}

async function showWorkers() {
  const { workers } = await api("/api/v1/workers");
  const body = $("#workers tbody");
  body.replaceChildren();
  for (const w of workers) {
    const row = document.createElement("tr");
    row.dataset.name = w.name;
    cell(row, w.name);
    cell(row, w.state, `state state-${w.state}`);
    cell(row, w.digest);
    cell(row, ago(w.silent_ms));
    cell(row, w.jobs_done, "num jobs");
    cell(row, w.judge_errors, "num errors");
    body.appendChild(row);
  }
}

// The list and the counts, drawn in one go: the list is read first, so the counts (read after it)
// never show fewer done than the rows do.
async function showSubmissions() {
  const { submissions } = await api("/api/v1/submissions");
  const showCounts = await readQueue();
  showCounts();
  const body = $("#submissions tbody");
  body.replaceChildren();
  for (const s of submissions) {
    const row = document.createElement("tr");
    row.dataset.id = s.id;
    if (selected === s.id) row.classList.add("selected");
    cell(row, s.id, "num");
    cell(row, s.problem);
    cell(row, s.submitter);
    cell(row, s.language);
    cell(row, s.state, "state");
    cell(row, s.verdict, `verdict verdict-${s.verdict}`);
    cell(row, ms(s.time_ms), "num");
    cell(row, kib(s.memory_kib), "num");
    row.addEventListener("click", () => select(s.id));
    body.appendChild(row);
  }
}

async function select(id) {
  selected = id;
  for (const row of document.querySelectorAll("#submissions tbody tr")) {
    row.classList.toggle("selected", Number(row.dataset.id) === id);
  }
  await showSubmission();
}

async function showSubmission() {
  if (selected === null) return;
  const s = await api(`/api/v1/submissions/${selected}`);
  const panel = $("#submission");
  panel.hidden = false;
  panel.dataset.id = s.id;
  panel.querySelector("h2").textContent = `Submission ${s.id}: ${s.problem}`;
  const verdict = s.verdict ? `${s.verdict}` : s.state;
  panel.querySelector(".meta").textContent =
    `${verdict} · ${s.language || "language from the file name"} · ${ms(s.time_ms)} · ${kib(s.memory_kib)}`;
  const compile = panel.querySelector(".compile");
  compile.hidden = !s.compile_output;
  compile.textContent = s.compile_output || "";
  const error = panel.querySelector(".error");
  error.hidden = !s.error;
  error.textContent = s.error || "";
  const tests = panel.querySelector(".tests tbody");
  tests.replaceChildren();
  for (const t of s.tests) {
    const row = document.createElement("tr");
    row.dataset.test = t.name;
    cell(row, t.name);
    cell(row, t.verdict, `verdict verdict-${t.verdict}`);
    const time = cell(row, ms(t.time_ms), "num time");
    if (t.near_limit) {
      time.classList.add("near");
      time.title = t.beside_ms !== null && t.beside_ms !== undefined
        ? `near the limit: ${t.beside_ms} ms beside other jobs, ${t.time_ms} ms judged again alone`
        : "near the limit";
    }
    cell(row, ms(t.limit_ms), "num");
    cell(row, kib(t.memory_kib), "num");
    cell(row, t.message, "message");
    tests.appendChild(row);
  }
  const judgings = panel.querySelector(".judgings tbody");
  judgings.replaceChildren();
  for (const j of s.judgings) {
    const row = document.createElement("tr");
    cell(row, j.attempt, "num");
    cell(row, j.worker);
    cell(row, j.started_at);
    cell(row, j.finished_at);
    cell(row, j.outcome);
    cell(row, j.reason, "message");
    judgings.appendChild(row);
  }
}

let rejudge = null;

async function showRejudges() {
  const { rejudges } = await api("/api/v1/rejudges");
  const body = $("#rejudge-list tbody");
  body.replaceChildren();
  for (const r of rejudges) {
    const row = document.createElement("tr");
    row.dataset.id = r.id;
    cell(row, r.id, "num");
    cell(row, r.state, "state");
    cell(row, r.submissions, "num");
    cell(row, r.waiting, "num");
    row.addEventListener("click", () => { rejudge = r.id; showRejudge().catch(failed); });
    body.appendChild(row);
  }
  await showRejudge();
}

async function showRejudge() {
  const panel = $("#rejudge");
  if (rejudge === null) { panel.hidden = true; return; }
  const r = await api(`/api/v1/rejudges/${rejudge}`);
  panel.hidden = false;
  panel.dataset.id = r.id;
  panel.dataset.state = r.state;
  panel.querySelector("h3").textContent = `Set ${r.id}: ${r.state}`;
  panel.querySelector(".meta").textContent =
    `${r.judged} of ${r.judgings} judgings done · ${r.submissions} submissions · repeat ${r.repeat}`;
  const matrix = panel.querySelector(".matrix tbody");
  matrix.replaceChildren();
  for (const m of r.matrix) {
    const row = document.createElement("tr");
    cell(row, m.from, `verdict verdict-${m.from}`);
    cell(row, m.to, `verdict verdict-${m.to}`);
    cell(row, m.count, "num");
    matrix.appendChild(row);
  }
  const changed = panel.querySelector(".changed tbody");
  changed.replaceChildren();
  for (const c of r.changed) {
    const row = document.createElement("tr");
    row.dataset.id = c.id;
    cell(row, c.id, "num");
    cell(row, c.problem);
    cell(row, c.old.verdict, `verdict verdict-${c.old.verdict}`);
    cell(row, c.new.verdict, `verdict verdict-${c.new.verdict}`);
    cell(row, `${ms(c.old.time_ms)} → ${ms(c.new.time_ms)}`, "num");
    changed.appendChild(row);
  }
  const open = r.state === "judging" || r.state === "done";
  $("#apply").disabled = r.state !== "done";
  $("#cancel").disabled = !open;
}

async function rejudgeAction(action) {
  if (rejudge === null) return;
  await api(`/api/v1/rejudges/${rejudge}/${action}`, { method: "POST" });
  await Promise.all([showRejudges(), showSubmissions(), showSubmission()]);
}

let pending = null;
function refreshSoon() {
  if (pending) return;
  pending = setTimeout(async () => {
    pending = null;
    await Promise.all([showSubmissions(), showSubmission(), showRejudges()]).catch(failed);
  }, 200);
}

// The events stream, read with fetch (EventSource cannot send the token).
async function listen() {
  if (!token) return;
  streamAbort = new AbortController();
  const live = $("#live");
  try {
    const answer = await fetch("/api/v1/events", {
      headers: { Authorization: `Bearer ${token}` },
      signal: streamAbort.signal,
    });
    if (!answer.ok) throw new Error(`${answer.status}`);
    live.textContent = "live";
    live.className = "live on";
    const reader = answer.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = "message";
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) name = line.slice(7);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        event(name, data);
      }
    }
  } catch (e) {
    if (e.name === "AbortError") return;
  }
  live.textContent = "offline";
  live.className = "live off";
  setTimeout(listen, 2000);
}

function event(name, data) {
  let payload = null;
  try { payload = JSON.parse(data); } catch (e) { return; }
  const id = payload.id !== undefined ? payload.id : payload.submission;
  if (name === "judging" || name === "done") refreshSoon();
  else if (id === selected) refreshSoon();
}

function failed(e) {
  if (e && e.status === 401) {
    logout(e.message);
  }
}

function logout(reason) {
  token = null;
  sessionStorage.removeItem("judge-jury-token");
  if (streamAbort) streamAbort.abort();
  $("#jury").hidden = true;
  $("#forget").hidden = true;
  $("#login").hidden = false;
  const error = $("#login-error");
  error.hidden = !reason;
  error.textContent = reason || "";
}

async function open(candidate) {
  token = candidate;
  try {
    await Promise.all([showWorkers(), showSubmissions(), showRejudges()]);
  } catch (e) {
    logout(e.message);
    return;
  }
  sessionStorage.setItem("judge-jury-token", token);
  $("#login").hidden = true;
  $("#jury").hidden = false;
  $("#forget").hidden = false;
  listen();
}

document.addEventListener("DOMContentLoaded", () => {
  $("#login").addEventListener("submit", (e) => {
    e.preventDefault();
    open($("#token").value.trim());
  });
  $("#forget").addEventListener("click", () => logout(null));
  $("#new-rejudge").addEventListener("submit", async (e) => {
    e.preventDefault();
    const filter = {};
    const problem = $("#rejudge-problem").value.trim();
    if (problem) filter.problem = problem;
    if ($("#rejudge-stale").checked) filter.stale = true;
    const error = $("#rejudge-error");
    try {
      const made = await api("/api/v1/rejudges", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(filter),
      });
      error.hidden = true;
      rejudge = made.id;
      await showRejudges();
    } catch (err) {
      error.hidden = false;
      error.textContent = err.message;
    }
  });
  $("#apply").addEventListener("click", () => rejudgeAction("apply").catch(failed));
  $("#cancel").addEventListener("click", () => rejudgeAction("cancel").catch(failed));
  setInterval(() => {
    if (token) Promise.all([showWorkers(), showQueue(), showRejudges()]).catch(failed);
  }, 2000);
  const given = () => {
    const t = new URLSearchParams(location.hash.slice(1)).get("token");
    if (t) history.replaceState(null, "", location.pathname);
    return t;
  };
  // A token given in the address again (a bookmark opened in this tab) replaces the kept one.
  window.addEventListener("hashchange", () => {
    const t = given();
    if (t) {
      if (streamAbort) streamAbort.abort();
      open(t);
    }
  });
  const kept = given() || sessionStorage.getItem("judge-jury-token");
  if (kept) open(kept);
  else logout(null);
});
