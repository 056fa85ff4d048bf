//! The practice page in a real browser: Debian's `chromium`, headless, driven over the DevTools
//! protocol (`browser/cdp.rs`). A missing Chromium fails these tests with the command that
//! installs it; they are never skipped. Its length is one test per user action on the page.
//!
//! `JUDGE_SCREENSHOTS=docs/screenshots cargo test --test judge browser` also writes the
//! README's screenshots (otherwise they go to a temporary folder and are only checked to be
//! PNGs).

pub(crate) mod cdp;

use super::harness::{judge, Serving};
use cdp::Browser;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where the screenshots go: `$JUDGE_SCREENSHOTS` (relative to the repository), else a
/// temporary folder that lives as long as the returned guard.
fn screenshot_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    match std::env::var_os("JUDGE_SCREENSHOTS") {
        Some(dir) => (super::harness::root().join(dir), None),
        None => {
            let tmp = tempfile::tempdir().unwrap();
            (tmp.path().to_path_buf(), Some(tmp))
        }
    }
}

#[test]
fn chromium_is_installed() {
    // Its own test so that a machine without it says so first and plainly.
    if let Err(message) = cdp::find_chromium() {
        panic!("{message}");
    }
}

/// The statement renderer's MathML as Chromium lays it out: a fraction stacks its numerator
/// above its denominator, a superscript sits higher than its base, and a statement's raw HTML
/// stays text (no element is created from it, no script runs).
#[test]
fn statement_math_is_laid_out_by_the_browser_and_raw_html_stays_text() {
    let statement = judge_practice::statement::render(
        "# Sum\n\nGiven $\\frac{a}{b}$ and $10^{5}$, print $\\binom{n}{k}$.\n\n\
         $$f(n) = \\begin{cases} 1 & n = 0 \\\\ n f(n - 1) & \\text{otherwise} \\end{cases}$$\n\n\
         <img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>\n",
    );
    let page = format!("<!doctype html><meta charset=utf-8><title>ok</title><body>{statement}");
    let mut browser = Browser::launch();
    browser.goto(&format!(
        "data:text/html;base64,{}",
        base64_encode(page.as_bytes())
    ));
    let layout = browser.eval(
        "(() => {
            const frac = document.querySelector('mfrac');
            const [num, den] = frac.children;
            const sup = document.querySelector('msup');
            const [base, exp] = sup.children;
            const r = (e) => e.getBoundingClientRect();
            return {
                fracBelow: r(den).top >= r(num).bottom - 1,
                fracWidth: r(frac).width,
                supHigher: r(exp).top < r(base).top,
                rowsStacked: (() => {
                    const rows = document.querySelectorAll('mtable mtr');
                    return rows.length === 2 && r(rows[1]).top >= r(rows[0]).bottom - 1;
                })(),
                display: getComputedStyle(document.querySelector('math[display=block]')).display,
                images: document.querySelectorAll('img').length,
                scripts: document.querySelectorAll('body script').length,
                title: document.title,
                mathml: typeof MathMLElement,
            };
        })()",
    );
    assert_eq!(layout["mathml"], "function", "{layout}");
    assert_eq!(layout["fracBelow"], true, "{layout}");
    assert!(layout["fracWidth"].as_f64().unwrap() > 0.0, "{layout}");
    assert_eq!(layout["supHigher"], true, "{layout}");
    assert_eq!(layout["rowsStacked"], true, "{layout}");
    assert_eq!(layout["display"], "block math", "{layout}");
    assert_eq!(layout["images"], 0, "{layout}");
    assert_eq!(layout["scripts"], 0, "{layout}");
    assert_eq!(layout["title"], "ok", "{layout}");
}

fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

// ---------- a real `judge practice` server ----------

/// `judge practice` on free loopback ports with a known token, contained by the harness
/// (`Judge::serve`: its own cgroup and PID namespace, the host's network); [`Server::stop`]
/// interrupts it and fails the test if it left anything behind.
struct Server {
    serving: Serving,
    port: u16,
    cc_port: u16,
    token: String,
    _dir: tempfile::TempDir,
}

/// The port in a line the server printed at start (`page: http://127.0.0.1:P/?token=…`,
/// `competitive-companion port: Q …`).
fn port_in(line: &str, after: &str) -> u16 {
    let rest = line
        .split_once(after)
        .unwrap_or_else(|| panic!("`{after}` not in {line:?}"))
        .1;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"))
}

impl Server {
    /// With a copy of the shipped problem `snake` in the practice folder (a native package
    /// with a statement).
    fn start() -> Server {
        Server::start_with(&[])
    }

    /// [`Server::start`] with more options of `judge practice`.
    fn start_with(extra: &[&str]) -> Server {
        let token = format!("browser-test-{}", std::process::id());
        let mut args = vec!["--token", &token];
        args.extend_from_slice(extra);
        Server::start_in(tempfile::tempdir().unwrap(), &args)
    }

    /// `judge practice` on the folder `dir` with `args` (without `--token`: the folder's).
    fn start_in(dir: tempfile::TempDir, args: &[&str]) -> Server {
        let snake = super::harness::root().join("problems/snake");
        let copy = dir.path().join("problems/snake");
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir_all(copy.join("tests")).unwrap();
        for file in ["problem.toml", "statement.md"] {
            std::fs::copy(snake.join(file), copy.join(file)).unwrap();
        }
        for entry in std::fs::read_dir(snake.join("tests")).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, copy.join("tests").join(path.file_name().unwrap())).unwrap();
        }
        let mut serving = judge()
            .arg("practice")
            .arg("--dir")
            .arg(dir.path())
            .args(["--port", "0", "--cc-port", "0"])
            .args(args.iter().copied())
            .serve();
        let page = serving.line();
        let port = port_in(&page, "http://127.0.0.1:");
        let token = page.split_once("/?token=").expect(&page).1.to_string();
        let cc_port = port_in(&serving.line(), "competitive-companion port: ");
        let server = Server {
            serving,
            port,
            cc_port,
            token,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while !matches!(
            server.try_request("GET", "/api/problems", None),
            Ok((200, _))
        ) {
            assert!(
                Instant::now() < deadline,
                "judge practice did not answer on port {port} within 30 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// Sends a problem as competitive-companion does: to the receiver's port, no token.
    fn receive(&self, problem: &Value) {
        let mut cc = TcpStream::connect(("127.0.0.1", self.cc_port)).unwrap();
        let body = problem.to_string();
        write!(
            cc,
            "POST / HTTP/1.1\r\nHost: localhost:{}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.cc_port,
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        cc.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }

    /// Interrupts the server: it ends with 130 and leaves nothing behind.
    fn stop(self) {
        self.serving.stop().expect_code(130);
    }

    /// [`Server::stop`], keeping its folder for the next server.
    fn stop_keeping_folder(self) -> tempfile::TempDir {
        self.serving.stop().expect_code(130);
        self._dir
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// One request with the token as a bearer: (status, body).
    fn try_request(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> std::io::Result<(u16, String)> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            self.token,
            body.len()
        );
        stream.write_all(head.as_bytes())?;
        stream.write_all(body.as_bytes())?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response)?;
        let response = String::from_utf8_lossy(&response).into_owned();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        Ok((status, body.to_string()))
    }

    fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let (status, text) = self
            .try_request(method, path, body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {text}"
        );
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path}: {e}: {text}"))
    }
}

/// The page threw nothing and broke no rule of its Content-Security-Policy.
fn assert_page_was_clean(browser: &Browser) {
    let bad: Vec<&String> = browser
        .console
        .iter()
        .filter(|l| l.starts_with("exception") || l.contains("Content Security Policy"))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

/// A competitive-companion problem: a + b, two samples.
fn sum_problem() -> Value {
    json!({
        "name": "A. Sum of Two",
        "group": "Browser Round 1",
        "url": "https://example.org/contest/1/problem/A",
        "interactive": false,
        "memoryLimit": 256,
        "timeLimit": 2000,
        "tests": [
            {"input": "1 2\n", "output": "3\n"},
            {"input": "20 22\n", "output": "42\n"}
        ],
        "testType": "single",
        "input": {"type": "stdin"},
        "output": {"type": "stdout"},
        "languages": {"java": {"mainClass": "Main", "taskClass": "Sum"}},
        "batch": {"id": "0b7e4a52-7a5e-4a0e-9a51-6c0de0b7e4a5", "size": 1}
    })
}

const CORRECT: &str = "a, b = map(int, input().split())\nprint(a + b)\n";
/// Correct, but slow (3 s of wall time, no CPU time; the wall limit is 3 x 2 s + 1 s) on the
/// second test: the first test's verdict must be on the page while the second still runs.
const CORRECT_SLOW_ON_2: &str =
    "import time\na, b = map(int, input().split())\nif a == 20:\n    time.sleep(3)\nprint(a + b)\n";
const WRONG: &str = "a, b = map(int, input().split())\nprint(a * b)\n";

/// Opens the received "Sum of Two" problem from the list and waits for its first sample.
fn open_sum_problem(browser: &mut Browser) -> Value {
    let id = browser.wait_for(
        "(() => { const a = document.querySelector('#problem-list a.problem');
            return a && a.textContent.includes('Sum of Two') ? a.dataset.problem : null; })()",
        Duration::from_secs(30),
    );
    browser.eval(&format!(
        "location.hash = '#/p/' + encodeURIComponent({id})"
    ));
    browser.wait_for(
        "(() => { const s = document.querySelector('.sample-in');
            return s && s.textContent === '1 2\\n'; })()",
        Duration::from_secs(30),
    );
    id
}

/// Pastes `source` as Python into the open problem's submit box and submits it; returns the
/// submission id the page shows once it has one other than `previous`.
fn paste_and_submit(browser: &mut Browser, source: &str, previous: &Value) -> Value {
    paste_and_submit_as(browser, source, "Python 3", previous)
}

fn paste_and_submit_as(
    browser: &mut Browser,
    source: &str,
    language: &str,
    previous: &Value,
) -> Value {
    browser.eval(
        "(() => { const b = document.querySelector('[data-tab=paste]'); if (b) b.click(); })()",
    );
    browser.wait_for("document.getElementById('source')", Duration::from_secs(30));
    browser.eval(&format!(
        "(() => {{
            const text = document.getElementById('source');
            text.value = {source};
            text.dispatchEvent(new Event('input'));
            document.getElementById('language').value = {language};
            document.getElementById('submit').click();
        }})()",
        source = serde_json::to_string(source).unwrap(),
        language = serde_json::to_string(language).unwrap(),
    ));
    browser.wait_for(
        &format!(
            "(() => {{ const s = document.getElementById('submission');
                return s && s.dataset.id !== String({previous}) ? s.dataset.id : null; }})()"
        ),
        Duration::from_secs(30),
    )
}

/// The shown submission's final verdict (waits for judging to end).
fn verdict_of_shown(browser: &mut Browser) -> String {
    browser
        .wait_for(
            "(() => { const s = document.getElementById('submission');
                return s && s.dataset.verdict; })()",
            Duration::from_secs(120),
        )
        .as_str()
        .unwrap()
        .to_string()
}

/// The per-test rows of the shown submission: [name, verdict, time, memory].
fn rows_of_shown(browser: &mut Browser) -> Vec<Vec<String>> {
    let rows = browser.eval(
        "[...document.querySelectorAll('#tests tbody tr')].map(r => [
            r.dataset.test, r.dataset.verdict,
            r.querySelector('.time').textContent, r.querySelector('.memory').textContent])",
    );
    serde_json::from_value(rows).unwrap()
}

#[test]
fn practice_page_receives_a_problem_judges_pasted_solutions_live_and_keeps_a_scoreboard() {
    let (shots, _keep) = screenshot_dir();
    let server = Server::start();
    // The problem arrives as competitive-companion sends it (to the receiver port).
    server.receive(&sum_problem());

    // A second one through the API, as a script would send it.
    let mut difference = sum_problem();
    difference["name"] = json!("B. Difference");
    difference["url"] = json!("https://example.org/contest/1/problem/B");
    difference["tests"] = json!([{"input": "5 3\n", "output": "2\n"}]);
    difference.as_object_mut().unwrap().remove("batch");
    let other = server.request("POST", "/api/problems", Some(&difference))["id"].clone();

    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    // The token became a cookie: a fetch with nothing but the cookie is authorised, and the
    // token left the address bar.
    let status =
        browser.eval("fetch('/api/problems', {credentials: 'same-origin'}).then(r => r.status)");
    assert_eq!(status, 200, "the page's cookie does not authorise the API");
    let address = browser.eval("location.href");
    assert!(!address.as_str().unwrap().contains("token="), "{address}");
    // The cookie is HttpOnly: no script of the page can read the token.
    let cookies = browser.eval("document.cookie");
    assert!(
        !cookies.as_str().unwrap().contains(&server.token),
        "{cookies}"
    );
    browser.wait_for(
        "document.getElementById('live').classList.contains('on')",
        Duration::from_secs(30),
    );

    // The received problem is listed; open it: name, limits, link and samples.
    let id = open_sum_problem(&mut browser);
    let meta = browser.eval("document.querySelector('.meta').textContent");
    let meta = meta.as_str().unwrap();
    assert!(meta.contains("2000 ms"), "{meta}");
    assert!(meta.contains("256 MiB"), "{meta}");
    assert!(meta.contains("2 tests"), "{meta}");
    let link = browser.eval("document.querySelector('.meta a').href");
    assert_eq!(link, "https://example.org/contest/1/problem/A");
    browser.screenshot(&shots.join("problem.png"));

    // A correct solution: the first test's AC shows while the second runs, then AC on both,
    // each with its CPU time and peak memory.
    let first = paste_and_submit(&mut browser, CORRECT_SLOW_ON_2, &Value::Null);
    browser.wait_for(
        "(() => { const s = document.getElementById('submission');
            const r = document.querySelector('#tests tr[data-test=\"sample-1\"]');
            return s.dataset.verdict === '' && r && r.dataset.verdict === 'AC'; })()",
        Duration::from_secs(60),
    );
    browser.screenshot(&shots.join("verdicts.png"));
    assert_eq!(verdict_of_shown(&mut browser), "AC");
    // The problem's line says it is solved (first try), without reopening it.
    let solved = browser.wait_for(
        "(() => { const n = document.getElementById('solved-note'); return n && n.textContent; })()",
        Duration::from_secs(30),
    );
    assert!(
        solved.as_str().unwrap().starts_with("solved in "),
        "{solved}"
    );
    assert!(!solved.as_str().unwrap().contains("rejected"), "{solved}");
    let rows = rows_of_shown(&mut browser);
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in &rows {
        assert_eq!(row[1], "AC", "{rows:?}");
        assert!(
            row[2].ends_with(" ms") || row[2].ends_with(" s"),
            "{rows:?}"
        );
        assert!(
            row[3].ends_with("KiB") || row[3].ends_with("MiB"),
            "{rows:?}"
        );
    }

    // A wrong one: WA on the first test, its diff shows expected 3 and found 2.
    let second = paste_and_submit(&mut browser, WRONG, &first);
    assert_ne!(first, second);
    assert_eq!(verdict_of_shown(&mut browser), "WA");
    let rows = rows_of_shown(&mut browser);
    assert_eq!(rows[0][1], "WA", "{rows:?}");
    let diff = browser.wait_for(
        "(() => { const d = document.getElementById('diff'); return d && d.innerText; })()",
        Duration::from_secs(30),
    );
    let diff = diff.as_str().unwrap();
    assert!(diff.contains("expected"), "{diff}");
    assert!(diff.contains("found"), "{diff}");
    assert!(diff.contains('3') && diff.contains('2'), "{diff}");
    browser.eval("window.scrollTo(0, document.getElementById('submission').offsetTop - 50)");
    browser.screenshot(&shots.join("diff.png"));

    // Both are in the history, newest first.
    let id_text = id.as_str().map_or(id.to_string(), String::from);
    let history = server.request("GET", &format!("/api/submissions?problem={id_text}"), None);
    let verdicts: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["verdict"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(verdicts, ["WA", "AC"], "{history}");

    // A compile error shows the compiler's message.
    let ce = paste_and_submit_as(&mut browser, "int main( {\n", "C++", &second);
    assert_eq!(verdict_of_shown(&mut browser), "CE");
    let compiler = browser.eval("document.querySelector('#submission pre.compile').textContent");
    assert!(compiler.as_str().unwrap().contains("error"), "{compiler}");

    // A native package's statement: Markdown and TeX rendered on the server, MathML laid out
    // by the browser, nothing left unknown.
    browser.eval("location.hash = '#/p/snake'");
    let maths = browser.wait_for(
        "(() => { const s = document.querySelector('#statement h1');
            return s && s.textContent === 'Snake' ? document.querySelectorAll('#statement math').length : 0; })()",
        Duration::from_secs(30),
    );
    assert!(maths.as_u64().unwrap() >= 10, "{maths} formulas");
    let unknown = browser.eval("document.querySelectorAll('#statement .tex-unknown').length");
    assert_eq!(unknown, 0);
    let constraint = browser.eval(
        "[...document.querySelectorAll('#statement li math')][0].getBoundingClientRect().width",
    );
    assert!(constraint.as_f64().unwrap() > 20.0, "{constraint}");
    browser.screenshot(&shots.join("statement.png"));

    // A virtual contest of the batch from the page: one rejected attempt, then AC.
    browser.eval("location.hash = '#/contests'");
    browser.wait_for(
        "document.getElementById('contest-start')",
        Duration::from_secs(30),
    );
    browser.eval(&format!(
        "(() => {{
            document.getElementById('contest-name').value = 'Browser Round 1';
            document.getElementById('contest-duration').value = '90';
            document.getElementById('pick-' + {id}).checked = true;
            document.getElementById('pick-' + {other}).checked = true;
            document.getElementById('contest-start').click();
        }})()"
    ));
    browser.wait_for(
        "document.getElementById('scoreboard')",
        Duration::from_secs(30),
    );
    let contest = browser.eval("location.hash");
    browser.eval(&format!(
        "location.hash = '#/p/' + encodeURIComponent({id})"
    ));
    browser.wait_for("document.getElementById('submit')", Duration::from_secs(30));
    let third = paste_and_submit(&mut browser, WRONG, &ce);
    assert_eq!(verdict_of_shown(&mut browser), "WA");
    let fourth = paste_and_submit(&mut browser, CORRECT, &third);
    assert_eq!(verdict_of_shown(&mut browser), "AC");
    browser.eval(&format!(
        "location.hash = '#/p/' + encodeURIComponent({other})"
    ));
    browser.wait_for(
        "document.getElementById('problem-name').textContent === 'B. Difference'",
        Duration::from_secs(30),
    );
    paste_and_submit(&mut browser, WRONG, &fourth);
    assert_eq!(verdict_of_shown(&mut browser), "WA");
    browser.eval(&format!("location.hash = {contest}"));
    let board = browser.wait_for(
        "(() => { const s = document.querySelector('#scoreboard .total-solved');
            return s && s.textContent === '1' ? document.getElementById('scoreboard').innerText : null; })()",
        Duration::from_secs(30),
    );
    let cells = browser.eval(
        "[...document.querySelectorAll('#scoreboard tbody td[data-problem]')].map(c => [c.className, c.innerText])",
    );
    assert_eq!(cells[0][0], "solved", "{board}");
    assert!(cells[0][1].as_str().unwrap().starts_with("+1"), "{board}");
    assert_eq!(cells[1][0], "tried", "{board}");
    assert!(cells[1][1].as_str().unwrap().starts_with("−1"), "{board}");
    let penalty = browser.eval("document.querySelector('#scoreboard .total-penalty').textContent");
    let penalty: u64 = penalty.as_str().unwrap().parse().unwrap();
    // 20 minutes for the rejected attempt plus the minute of the AC (the test takes well under
    // ten minutes).
    assert!((20..30).contains(&penalty), "penalty {penalty}: {board}");
    let clock = browser.eval("document.getElementById('clock').textContent");
    assert!(
        clock.as_str().unwrap().contains("Browser Round 1 1:"),
        "{clock}"
    );
    browser.screenshot(&shots.join("scoreboard.png"));
    // The list of problems: A solved at its first submission (later rejections do not count),
    // B not yet.
    browser.eval("location.hash = '#/'");
    let list = browser.wait_for(
        "(() => { const rows = [...document.querySelectorAll('#problems tbody tr')]
                .map(r => [r.cells[0].textContent, r.querySelector('.outcome').textContent]);
            return rows.length === 3 ? rows : null; })()",
        Duration::from_secs(30),
    );
    assert!(list[0][1].as_str().unwrap().starts_with("AC in "), "{list}");
    assert!(!list[0][1].as_str().unwrap().contains("rejected"), "{list}");
    assert_eq!(list[1][1], "not yet", "{list}");
    for name in ["problem", "statement", "verdicts", "diff", "scoreboard"] {
        let png = std::fs::read(shots.join(format!("{name}.png"))).unwrap();
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 10_000,
            "{name}.png"
        );
    }
    assert_page_was_clean(&browser);
    drop(browser);
    server.stop();
}

/// The shown submission's id once it is a finished one other than `previous`: (id, verdict).
fn next_finished(browser: &mut Browser, previous: &Value) -> (Value, String) {
    let seen = browser.wait_for(
        &format!(
            "(() => {{ const s = document.getElementById('submission');
                return s && s.dataset.id !== String({previous}) && s.dataset.verdict
                    ? [s.dataset.id, s.dataset.verdict] : null; }})()"
        ),
        Duration::from_secs(120),
    );
    (seen[0].clone(), seen[1].as_str().unwrap().to_string())
}

#[test]
fn practice_page_watches_a_file_stresses_it_and_adds_the_counterexample_as_a_test() {
    let (shots, _keep) = screenshot_dir();
    let server = Server::start();
    let files = tempfile::tempdir().unwrap();
    let solution = files.path().join("a.py");
    std::fs::write(&solution, CORRECT).unwrap();
    let generator = files.path().join("gen.py");
    std::fs::write(
        &generator,
        "import random, sys\nr = random.Random(int(sys.argv[1]))\n\
         print(r.randint(0, 100), r.randint(0, 100))\n",
    )
    .unwrap();
    let brute = files.path().join("brute.py");
    std::fs::write(&brute, CORRECT).unwrap();
    let id = server.request("POST", "/api/problems", Some(&sum_problem()))["id"].clone();

    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    browser.eval(&format!(
        "location.hash = '#/p/' + encodeURIComponent({id})"
    ));
    browser.wait_for(
        "document.querySelector('[data-tab=watch]')",
        Duration::from_secs(30),
    );
    browser.eval("document.querySelector('[data-tab=watch]').click()");
    browser.eval(&format!(
        "(() => {{
            document.getElementById('path').value = {path};
            document.getElementById('watch').click();
        }})()",
        path = serde_json::to_string(&solution).unwrap()
    ));
    let (first, verdict) = next_finished(&mut browser, &Value::Null);
    assert_eq!(verdict, "AC");
    let watched = browser.wait_for(
        "(() => { const w = document.querySelector('#watches li'); return w && w.textContent; })()",
        Duration::from_secs(30),
    );
    assert!(watched.as_str().unwrap().contains("a.py"), "{watched}");

    // Saving the file judges it again, and the page shows the new submission by itself.
    std::fs::write(&solution, WRONG).unwrap();
    let (_second, verdict) = next_finished(&mut browser, &first);
    assert_eq!(verdict, "WA");

    // Stress the watched (now wrong) file against the brute force; the counterexample becomes
    // a test of the user's.
    browser.eval(&format!(
        "(() => {{
            document.getElementById('stress-gen').value = {generator};
            document.getElementById('stress-brute').value = {brute};
            document.getElementById('stress-seconds').value = '60';
            document.getElementById('stress-run').click();
        }})()",
        generator = serde_json::to_string(&generator).unwrap(),
        brute = serde_json::to_string(&brute).unwrap(),
    ));
    let counterexample = browser.wait_for(
        "(() => { const c = document.getElementById('counterexample'); return c && c.innerText; })()",
        Duration::from_secs(120),
    );
    assert!(
        counterexample.as_str().unwrap().contains("WA"),
        "{counterexample}"
    );
    browser.eval("window.scrollTo(0, document.getElementById('stress').offsetTop - 50)");
    browser.screenshot(&shots.join("stress.png"));
    browser.eval("document.getElementById('stress-add').click()");
    browser.wait_for(
        "(() => { const l = document.querySelector('#custom-tests li');
            return l && l.textContent.includes('custom-1'); })()",
        Duration::from_secs(30),
    );
    let meta = browser.eval("document.querySelector('.meta').textContent");
    assert!(meta.as_str().unwrap().contains("3 tests"), "{meta}");
    assert_page_was_clean(&browser);
    drop(browser);
    server.stop();
}

#[test]
fn practice_page_shows_a_received_batch_at_once_and_starts_its_contest() {
    let server = Server::start();
    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    browser.wait_for(
        "document.getElementById('live').classList.contains('on')",
        Duration::from_secs(30),
    );
    // A contest parse: three problems with one batch id, sent while the page is open.
    let sent = Instant::now();
    for (i, name) in ["A. Alpha", "B. Beta", "C. Gamma"].iter().enumerate() {
        let mut problem = sum_problem();
        problem["name"] = json!(name);
        problem["group"] = json!("Batch Cup 7");
        problem["url"] = json!(format!("https://example.org/cup/7/{i}"));
        problem["batch"] = json!({"id": "7b7b7b7b-0000-4000-8000-000000000007", "size": 3});
        server.receive(&problem);
    }
    browser.wait_for(
        "[...document.querySelectorAll('#problem-list a.problem')]
            .filter(a => /Alpha|Beta|Gamma/.test(a.textContent)).length === 3",
        Duration::from_secs(30),
    );
    let shown = sent.elapsed();
    // The issue asks for "within a second"; under a loaded machine this test allows more, and
    // the time is printed.
    eprintln!("the batch was on the page {shown:?} after the first POST");
    assert!(shown < Duration::from_secs(5), "{shown:?}");

    // Its contest is listed, not started; starting it from the page runs the clock.
    browser.eval("location.hash = '#/contests'");
    let href = browser.wait_for(
        "(() => { const row = [...document.querySelectorAll('#contests tbody tr')]
                .find(r => r.textContent.includes('Batch Cup 7'));
            return row && row.textContent.includes('not started')
                ? row.querySelector('a').getAttribute('href') : null; })()",
        Duration::from_secs(30),
    );
    browser.eval(&format!("location.hash = {href}"));
    browser.wait_for(
        "document.getElementById('contest-begin')",
        Duration::from_secs(30),
    );
    browser.eval(
        "(() => { document.getElementById('start-duration').value = '60';
            document.getElementById('contest-begin').click(); })()",
    );
    browser.wait_for(
        "(() => { const s = document.getElementById('contest-state');
            return s && s.textContent === 'running' && !document.getElementById('start-contest'); })()",
        Duration::from_secs(30),
    );
    let header =
        browser.eval("[...document.querySelectorAll('#scoreboard th')].map(t => t.textContent)");
    assert_eq!(header, json!(["Who", "A", "B", "C", "Solved", "Penalty"]));
    let clock = browser.eval("document.getElementById('clock').textContent");
    assert!(
        clock.as_str().unwrap().starts_with("Batch Cup 7 0:59:")
            || clock.as_str().unwrap().starts_with("Batch Cup 7 1:00:"),
        "{clock}"
    );
    assert_page_was_clean(&browser);
    // The page's Content-Security-Policy is in force: an inline script (as an injected
    // statement would carry) does not run, and the browser reports it.
    browser.eval(
        "(() => { const s = document.createElement('script');
            s.textContent = 'window.injected = true;';
            document.body.appendChild(s); })()",
    );
    assert_eq!(browser.eval("window.injected === true"), false);
    browser.eval("0");
    assert!(
        browser
            .console
            .iter()
            .any(|l| l.contains("Content Security Policy")),
        "{:#?}",
        browser.console
    );
    drop(browser);
    server.stop();
}

/// A wrong answer with a debug print: the failing test's expected output and the program's
/// output side by side (the differing line marked), and its stderr under them.
#[test]
fn practice_page_shows_a_wrong_answers_output_beside_the_expected_and_its_stderr() {
    let server = Server::start();
    server.receive(&sum_problem());
    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    open_sum_problem(&mut browser);
    let debugging = "import sys\na, b = map(int, input().split())\n\
                     print('debug: a =', a, file=sys.stderr)\nprint(a * b)\n";
    paste_and_submit(&mut browser, debugging, &Value::Null);
    assert_eq!(verdict_of_shown(&mut browser), "WA");
    let shown = browser.wait_for(
        "(() => { const p = document.getElementById('printed');
            if (!p) return null;
            const text = (id) => { const e = document.getElementById(id); return e && e.querySelector('pre') ? e.querySelector('pre').textContent : null; };
            const differs = [...p.querySelectorAll('#stream-received .differs')].map(e => e.textContent);
            const e = document.getElementById('stream-expected'), r = document.getElementById('stream-received');
            return { test: p.dataset.test, expected: text('stream-expected'), received: text('stream-received'),
                     stderr: text('stream-stderr'), differs,
                     beside: e && r && Math.abs(e.getBoundingClientRect().top - r.getBoundingClientRect().top) < 2
                         && e.getBoundingClientRect().right <= r.getBoundingClientRect().left + 1 }; })()",
        Duration::from_secs(30),
    );
    assert_eq!(shown["test"], "sample-1", "{shown}");
    assert_eq!(shown["expected"], "3\n", "{shown}");
    assert_eq!(shown["received"], "2\n", "{shown}");
    assert_eq!(shown["differs"], json!(["2\n"]), "{shown}");
    assert_eq!(shown["stderr"], "debug: a = 1\n", "{shown}");
    assert_eq!(shown["beside"], true, "side by side: {shown}");
    assert_page_was_clean(&browser);
    server.stop();
}

/// A slow answer about the submission shown before never replaces the one just submitted: the
/// page asks for submission 1 (a click on its row, its answer held back 2 s), then submission 2
/// is submitted and shown; when 1's answer comes, 2 stays. (Under load a late refresh of the
/// previous submission left the page on it, its new submission never shown.)
#[test]
fn practice_page_keeps_the_newest_submission_shown_when_an_older_answer_comes_late() {
    let server = Server::start();
    server.receive(&sum_problem());
    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    open_sum_problem(&mut browser);
    let first = paste_and_submit(&mut browser, CORRECT, &Value::Null);
    assert_eq!(first, json!("1"));
    assert_eq!(verdict_of_shown(&mut browser), "AC");
    browser.eval(
        "(() => { const real = window.fetch;
            window.fetch = (url, options) => String(url).endsWith('/api/submissions/1')
                ? new Promise((r) => setTimeout(r, 2000)).then(() => real(url, options))
                    .then((res) => { setTimeout(() => { window.lateAnswered = true; }, 500); return res; })
                : real(url, options); })()",
    );
    browser.eval("document.querySelector('#history tr[data-id=\"1\"]').click()");
    let second = paste_and_submit(&mut browser, WRONG, &first);
    assert_eq!(second, json!("2"));
    browser.wait_for("window.lateAnswered === true", Duration::from_secs(30));
    assert_eq!(verdict_of_shown(&mut browser), "WA");
    assert_eq!(
        browser.eval("document.getElementById('submission').dataset.id"),
        json!("2")
    );
    assert_page_was_clean(&browser);
    server.stop();
}

/// An interactive problem from competitive-companion is refused by the judge (JE with its
/// reason): that is no attempt, so the problem gets no red mark and no rejected try.
#[test]
fn practice_page_does_not_count_a_refused_submission_as_an_attempt() {
    let server = Server::start();
    let mut interactive = sum_problem();
    interactive["interactive"] = json!(true);
    server.receive(&interactive);
    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    open_sum_problem(&mut browser);
    paste_and_submit(&mut browser, CORRECT, &Value::Null);
    assert_eq!(verdict_of_shown(&mut browser), "JE");
    // Once the history lists it, the sidebar's mark has been drawn from it.
    let mark = browser.wait_for(
        "(() => { const rows = document.querySelectorAll('#history tbody tr');
            const m = document.querySelector('#problem-list a.problem .mark');
            return rows.length === 1 && m ? [m.className, m.textContent] : null; })()",
        Duration::from_secs(30),
    );
    assert_eq!(mark, json!(["mark ", ""]), "a refusal painted the problem");
    let listed = server.request("GET", "/api/problems", None);
    assert_eq!(listed[0]["attempts"], 0, "{listed}");
    assert_eq!(listed[0]["submissions"], 0, "{listed}");
    assert_page_was_clean(&browser);
    server.stop();
}

/// With one judging engine, a second submission waits: the page says it is queued while the
/// first is being judged (both in the result and in the history), then judges it.
#[test]
fn practice_page_shows_a_submission_queued_behind_one_being_judged() {
    let server = Server::start_with(&["--jobs", "1"]);
    server.receive(&sum_problem());
    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    open_sum_problem(&mut browser);
    let slow = paste_and_submit(&mut browser, CORRECT_SLOW_ON_2, &Value::Null);
    let quick = paste_and_submit(&mut browser, WRONG, &slow);
    let seen = browser.wait_for(
        &format!(
            "(() => {{ const s = document.getElementById('submission');
                const row = (id) => document.querySelector(`#history tr[data-id='${{id}}']`);
                const [a, b] = [row({slow}), row({quick})];
                return s && s.dataset.state === 'queued' && a && b && a.dataset.state === 'judging'
                    && b.dataset.state === 'queued'
                    ? [s.querySelector('h2').textContent, b.querySelector('.verdict').textContent,
                       a.querySelector('.verdict').textContent] : null; }})()"
        ),
        Duration::from_secs(30),
    );
    let heading = seen[0].as_str().unwrap();
    assert!(
        heading.contains("queued") && heading.contains("waiting for a free judging engine"),
        "{seen}"
    );
    assert_eq!(seen[1], "queued", "{seen}");
    assert_eq!(seen[2], "judging", "{seen}");
    // Then it is judged, and the history says so for both.
    assert_eq!(verdict_of_shown(&mut browser), "WA");
    let states = browser.wait_for(
        "(() => { const rows = [...document.querySelectorAll('#history tbody tr')];
            return rows.length === 2 && rows.every((r) => r.dataset.state === 'done')
                ? rows.map((r) => r.querySelector('.verdict').textContent) : null; })()",
        Duration::from_secs(60),
    );
    assert_eq!(states, json!(["WA", "AC"]));
    let id = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let first = server.request("GET", &format!("/api/submissions/{}", id(&slow)), None);
    let second = server.request("GET", &format!("/api/submissions/{}", id(&quick)), None);
    assert!(
        first["finished_at"].as_i64().unwrap() <= second["started_at"].as_i64().unwrap(),
        "one engine judges one at a time: {first} {second}"
    );
    assert_page_was_clean(&browser);
    server.stop();
}

/// The token cookie is persistent (HttpOnly, SameSite=Strict, with an expiry): after a browser
/// restart the page's plain address opens the page, across a server restart too (the folder keeps
/// its token); once the token is rotated it shows the token page instead.
#[test]
fn practice_page_cookie_survives_a_browser_restart_until_the_token_is_rotated() {
    let server = Server::start_in(tempfile::tempdir().unwrap(), &[]);
    let mut browser = Browser::launch_own();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    browser.wait_for(
        "document.querySelector('#problem-list') && location.search === ''",
        Duration::from_secs(30),
    );
    let cookies = browser.call("Network.getCookies", json!({"urls": [server.url("/")]}));
    let cookie = cookies["cookies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "judge_token")
        .unwrap_or_else(|| panic!("{cookies}"))
        .clone();
    assert_eq!(cookie["value"], server.token.as_str());
    assert_eq!(cookie["session"], false, "{cookie}");
    assert_eq!(cookie["httpOnly"], true, "{cookie}");
    assert_eq!(cookie["sameSite"], "Strict", "{cookie}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let expires = cookie["expires"].as_f64().unwrap();
    assert!(expires > now + 29.0 * 86400.0, "{cookie}");
    // The page's script cannot read it.
    assert_eq!(browser.eval("document.cookie"), "");
    // The browser and the server restart; the plain address still opens the page.
    let token = server.token.clone();
    let dir = server.stop_keeping_folder();
    let mut browser = browser.restart();
    let server = Server::start_in(dir, &[]);
    assert_eq!(server.token, token, "the folder keeps its token");
    browser.goto(&server.url("/"));
    browser.wait_for(
        "document.querySelector('#problem-list a.problem') !== null",
        Duration::from_secs(30),
    );
    assert_page_was_clean(&browser);
    // A rotated token: the same address now shows the token page.
    let dir = server.stop_keeping_folder();
    let server = Server::start_in(dir, &["--rotate-token"]);
    assert_ne!(server.token, token);
    browser.goto(&server.url("/"));
    let heading = browser.wait_for(
        "(() => { const h = document.getElementById('locked'); return h && h.textContent; })()",
        Duration::from_secs(30),
    );
    assert_eq!(heading, "This page needs its token");
    // Its new address lets it in again.
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    browser.wait_for(
        "document.querySelector('#problem-list a.problem') !== null",
        Duration::from_secs(30),
    );
    server.stop();
}

/// A problem received without samples: its page says to add a test (and submitting waits for
/// one); the button leads to the form, the test added, the prompt goes and a solution is judged.
#[test]
fn practice_page_prompts_for_a_test_when_a_problem_came_without_samples() {
    let server = Server::start();
    let mut bare = sum_problem();
    bare["tests"] = json!([]);
    server.receive(&bare);
    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    let id = browser.wait_for(
        "(() => { const a = document.querySelector('#problem-list a.problem');
            return a && a.textContent.includes('Sum of Two') ? a.dataset.problem : null; })()",
        Duration::from_secs(30),
    );
    browser.eval(&format!(
        "location.hash = '#/p/' + encodeURIComponent({id})"
    ));
    let prompt = browser.wait_for(
        "(() => { const p = document.getElementById('needs-tests');
            const b = document.getElementById('submit');
            return p && b ? [p.textContent, b.disabled, !!document.getElementById('problem-error')] : null; })()",
        Duration::from_secs(30),
    );
    assert!(
        prompt[0].as_str().unwrap().contains("came without samples"),
        "{prompt}"
    );
    assert_eq!(prompt[1], true, "submitting waits for a test: {prompt}");
    assert_eq!(prompt[2], false, "the package loads: {prompt}");
    // The button puts the cursor in the form (clicked again if a redraw of the page, from an
    // event that came late, took the focus away meanwhile).
    browser.wait_for(
        "(() => { if (document.activeElement && document.activeElement.id === 'own-input') return true;
            const b = document.getElementById('go-add-test'); if (b) b.click(); return null; })()",
        Duration::from_secs(30),
    );
    browser.eval(
        "(() => {
            document.getElementById('own-input').value = '20 22\\n';
            document.getElementById('own-output').value = '42\\n';
            document.getElementById('add-test').click();
        })()",
    );
    browser.wait_for(
        "(() => !document.getElementById('needs-tests')
            && document.getElementById('submit') && !document.getElementById('submit').disabled
            && document.querySelectorAll('#custom-tests li').length === 1)()",
        Duration::from_secs(30),
    );
    paste_and_submit(&mut browser, CORRECT, &Value::Null);
    assert_eq!(verdict_of_shown(&mut browser), "AC");
    assert_eq!(
        rows_of_shown(&mut browser)
            .iter()
            .map(|r| r[0].clone())
            .collect::<Vec<_>>(),
        ["custom-1"]
    );
    assert_page_was_clean(&browser);
    server.stop();
}

/// Sets the files of the page's file input `#id` as a user picking them would (the page gets its
/// `change` event).
fn pick_files(browser: &mut Browser, id: &str, files: &[PathBuf]) {
    let input = browser.call(
        "Runtime.evaluate",
        json!({"expression": format!("document.getElementById('{id}')")}),
    );
    let object = input["result"]["objectId"]
        .as_str()
        .unwrap_or_else(|| panic!("no #{id}: {input}"))
        .to_string();
    browser.call(
        "DOM.setFileInputFiles",
        json!({"objectId": object, "files": files}),
    );
}

/// Tests imported from the page: picked files, then a .zip; each NAME.in with its answer becomes
/// a test of the user's, what else was picked is named as skipped, and a solution is judged on
/// them with the samples.
#[test]
fn practice_page_imports_tests_from_picked_files_and_a_zip() {
    use std::io::Write as _;
    let server = Server::start();
    server.receive(&sum_problem());
    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    open_sum_problem(&mut browser);
    let picked = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, text) in [
        ("1.in", "5 6\n"),
        ("1.ans", "11\n"),
        ("2.in", "7 7\n"),
        ("2.out", "14\n"),
        ("notes.txt", "x\n"),
    ] {
        std::fs::write(picked.path().join(name), text).unwrap();
        files.push(picked.path().join(name));
    }
    pick_files(&mut browser, "import-files", &files);
    let status = browser.wait_for(
        "(() => { const s = document.getElementById('import-status');
            return s && s.textContent.startsWith('Imported') ? s.textContent : null; })()",
        Duration::from_secs(30),
    );
    assert_eq!(status, "Imported 2 tests (skipped: notes.txt).");
    let zip = picked.path().join("more.zip");
    {
        let mut w = zip::ZipWriter::new(std::fs::File::create(&zip).unwrap());
        let deflated = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        w.start_file("more/3.in", deflated).unwrap();
        w.write_all(b"1 1\n").unwrap();
        w.start_file("more/3.ans", deflated).unwrap();
        w.write_all(b"2\n").unwrap();
        w.finish().unwrap();
    }
    pick_files(&mut browser, "import-files", &[zip]);
    let listed = browser.wait_for(
        "(() => { const s = document.getElementById('import-status');
            const own = [...document.querySelectorAll('#custom-tests li .mono')].map((e) => e.textContent);
            return s && s.textContent === 'Imported 1 test.' ? own : null; })()",
        Duration::from_secs(30),
    );
    assert_eq!(listed, json!(["custom-1", "custom-2", "custom-3"]));
    // A lone input is refused with its name, and nothing is added.
    let lone = picked.path().join("4.in");
    std::fs::write(&lone, "4 4\n").unwrap();
    pick_files(&mut browser, "import-files", &[lone]);
    let error = browser.wait_for(
        "(() => { const s = document.getElementById('import-status');
            return s && s.className === 'error' ? s.textContent : null; })()",
        Duration::from_secs(30),
    );
    assert!(
        error.as_str().unwrap().contains("4.in has no answer"),
        "{error}"
    );
    paste_and_submit(&mut browser, CORRECT, &Value::Null);
    assert_eq!(verdict_of_shown(&mut browser), "AC");
    let names: Vec<String> = rows_of_shown(&mut browser)
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(
        names,
        ["sample-1", "sample-2", "custom-1", "custom-2", "custom-3"]
    );
    let problem = server.request("GET", "/api/problems", None);
    assert_eq!(problem[0]["tests"], 5, "{problem}");
    assert_page_was_clean(&browser);
    server.stop();
}

// ---------- interactive problems and the compare matrix ----------

/// An interactive problem as competitive-companion sends it: no interactor, a sample whose
/// input is the hidden number and whose output is what a correct exchange ends with.
fn guess_problem() -> Value {
    json!({
        "name": "B. Guess the Number",
        "group": "Browser Round 2",
        "url": "https://example.org/contest/2/problem/B",
        "interactive": true,
        "memoryLimit": 256,
        "timeLimit": 1000,
        "tests": [{"input": "25\n", "output": "25\n"}],
        "testType": "single",
        "input": {"type": "stdin"},
        "output": {"type": "stdout"},
    })
}

/// Binary search over 1..100: asks `? m`, reads `<`, `>` or `=`, ends with `! m`; says what it
/// asks on stderr too.
const GUESS: &str = "import sys\nlo, hi = 1, 100\nwhile True:\n    mid = (lo + hi) // 2\n    \
    print('?', mid, flush=True)\n    print('asked', mid, file=sys.stderr, flush=True)\n    \
    r = input().strip()\n    if r == '=':\n        print('!', mid, flush=True)\n        break\n    \
    if r == '<':\n        hi = mid - 1\n    else:\n        lo = mid + 1\n";

/// The id of the interactive problem the server received (stored by its receiving thread
/// after the answer: waited for).
fn received_interactive(server: &Server) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let listed = server.request("GET", "/api/problems", None);
        if let Some(p) = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["interactive"] == json!(true))
        {
            return p["id"].clone();
        }
        assert!(Instant::now() < deadline, "not stored: {listed}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Opens problem `id` and waits for its panel `panel`.
fn open_problem(browser: &mut Browser, id: &Value, panel: &str) {
    browser.eval(&format!(
        "location.hash = '#/p/' + encodeURIComponent({id})"
    ));
    browser.wait_for(
        &format!("document.getElementById({})", json!(panel)),
        Duration::from_secs(30),
    );
}

/// The console's lines as the page shows them: (class, mark, text).
fn console_lines(browser: &mut Browser) -> Vec<(String, String, String)> {
    let v = browser.eval(
        "[...document.querySelectorAll('#console-log .cline')].map((l) =>
            [l.className, l.querySelector('.mark').textContent, l.querySelector('.text').textContent])",
    );
    serde_json::from_value(v).unwrap()
}

/// Types `line` into the console and sends it, then waits until the program's `answer` shows.
fn console_say(browser: &mut Browser, line: &str, answer: &str) {
    browser.eval(&format!(
        "(() => {{ const i = document.getElementById('console-input'); i.value = {line};
            document.getElementById('console-send').click(); }})()",
        line = json!(line)
    ));
    browser.wait_for(
        &format!(
            "[...document.querySelectorAll('#console-log .cline.received .text')]
                .some((t) => t.textContent === {})",
            json!(answer)
        ),
        Duration::from_secs(30),
    );
}

#[test]
fn practice_page_plays_an_interactive_problem_by_hand_saves_the_exchange_and_replays_it() {
    let (shots, _keep) = screenshot_dir();
    let server = Server::start();
    server.receive(&guess_problem());
    let files = tempfile::tempdir().unwrap();
    let solution = files.path().join("guess.py");
    std::fs::write(&solution, GUESS).unwrap();
    let id = received_interactive(&server);

    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    open_problem(&mut browser, &id, "console");
    // No interactor: the page says so, and offers the console.
    browser.wait_for(
        "document.getElementById('interactor-none')",
        Duration::from_secs(10),
    );
    browser.eval(&format!(
        "(() => {{ document.getElementById('console-path').value = {path};
            document.getElementById('console-start').click(); }})()",
        path = json!(solution)
    ));
    // The program asks first; the contestant answers as the judge would for 25.
    browser.wait_for(
        "[...document.querySelectorAll('#console-log .cline.received .text')]
            .some((t) => t.textContent === '? 50')",
        Duration::from_secs(60),
    );
    console_say(&mut browser, "<", "? 25");
    console_say(&mut browser, "=", "! 25");
    let ended = browser.wait_for(
        "(() => { const s = document.getElementById('console-status');
            return s && s.textContent.startsWith('Ended') ? s.textContent : null; })()",
        Duration::from_secs(30),
    );
    assert!(
        ended.as_str().unwrap().contains("Ended: exit code 0 — CPU"),
        "{ended}"
    );
    let lines = console_lines(&mut browser);
    let of = |class: &str| -> Vec<String> {
        lines
            .iter()
            .filter(|(c, _, _)| c == &format!("cline {class}"))
            .map(|(_, m, t)| format!("{m} {t}"))
            .collect()
    };
    assert_eq!(of("sent"), ["< <", "< ="], "{lines:?}");
    assert_eq!(of("received"), ["> ? 50", "> ? 25", "> ! 25"], "{lines:?}");
    assert_eq!(of("stderr"), ["! asked 50", "! asked 25"], "{lines:?}");
    // Colour-coded: sent, received and stderr lines each have a colour of their own.
    let colours = browser.eval(
        "['sent', 'received', 'stderr'].map((c) =>
            getComputedStyle(document.querySelector('#console-log .cline.' + c)).color)",
    );
    let colours: Vec<String> = serde_json::from_value(colours).unwrap();
    assert!(
        colours[0] != colours[1] && colours[1] != colours[2] && colours[0] != colours[2],
        "{colours:?}"
    );
    // Each line has its time since the start, in order.
    let times = browser.eval(
        "[...document.querySelectorAll('#console-log .cline .at')].map((a) => parseInt(a.textContent))",
    );
    let times: Vec<u64> = serde_json::from_value(times).unwrap();
    assert_eq!(times.len(), 7);
    let received_times: Vec<u64> = lines
        .iter()
        .zip(&times)
        .filter(|((c, _, _), _)| c == "cline received")
        .map(|(_, t)| *t)
        .collect();
    assert!(received_times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    browser.eval("window.scrollTo(0, document.getElementById('interactive').offsetTop - 50)");
    browser.screenshot(&shots.join("console.png"));

    // Saved as a Kattis .interaction sample, listed on the page and replayed against the file.
    browser.eval("document.getElementById('console-save').click()");
    browser.wait_for(
        "(() => { const l = document.querySelector('#interactions li');
            return l && l.textContent.includes('console-1.interaction'); })()",
        Duration::from_secs(30),
    );
    let problem_id = id.as_str().unwrap();
    let (status, text) = server
        .try_request(
            "GET",
            &format!("/api/problems/{problem_id}/interactions/console-1"),
            None,
        )
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(text, ">? 50\n<<\n>? 25\n<=\n>! 25\n");
    browser.eval(&format!(
        "(() => {{ document.getElementById('console-path').value = {path};
            document.querySelector('[data-replay=\"console-1\"]').click(); }})()",
        path = json!(solution)
    ));
    let replayed = browser.wait_for(
        "(() => { const s = document.getElementById('console-status');
            return s && s.textContent.startsWith('Replay') ? s.textContent : null; })()",
        Duration::from_secs(60),
    );
    assert!(
        replayed
            .as_str()
            .unwrap()
            .contains("the same exchange (5 lines)"),
        "{replayed}"
    );
    assert_page_was_clean(&browser);
    drop(browser);
    server.stop();
}

/// A Kattis-protocol interactor for the guessing game: the hidden number is the test's input.
const INTERACTOR: &str = "import sys\nsecret = int(open(sys.argv[1]).read())\nfor _ in range(10):\n    \
    line = input().split()\n    if line[0] == '!':\n        sys.exit(42 if int(line[1]) == secret else 43)\n    \
    q = int(line[1])\n    print('=' if q == secret else '<' if secret < q else '>', flush=True)\nsys.exit(43)\n";

#[test]
fn practice_page_judges_an_interactive_problem_once_an_interactor_is_attached() {
    let server = Server::start();
    server.receive(&guess_problem());
    let files = tempfile::tempdir().unwrap();
    let interactor = files.path().join("interactor.py");
    std::fs::write(&interactor, INTERACTOR).unwrap();
    let id = received_interactive(&server);
    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    open_problem(&mut browser, &id, "interactive");
    // Without an interactor the judge refuses (no attempt counted).
    let refused = paste_and_submit(&mut browser, GUESS, &Value::Null);
    assert_eq!(verdict_of_shown(&mut browser), "JE");
    // A wrong protocol name is refused with the choices; then the real one is attached.
    browser.eval(&format!(
        "(() => {{ document.getElementById('interactor-path').value = {path};
            document.getElementById('interactor-protocol').value = 'kattis';
            document.getElementById('interactor-attach').click(); }})()",
        path = json!(interactor)
    ));
    let attached = browser.wait_for(
        "(() => { const a = document.getElementById('interactor-attached'); return a && a.textContent; })()",
        Duration::from_secs(30),
    );
    assert!(
        attached
            .as_str()
            .unwrap()
            .contains("interactor.py (kattis)"),
        "{attached}"
    );
    let good = paste_and_submit(&mut browser, GUESS, &refused);
    assert_eq!(verdict_of_shown(&mut browser), "AC");
    // One that claims the wrong number is rejected by the interactor.
    let wrong = GUESS.replace(
        "print('!', mid, flush=True)",
        "print('!', mid + 1, flush=True)",
    );
    paste_and_submit(&mut browser, &wrong, &good);
    assert_eq!(verdict_of_shown(&mut browser), "WA");
    let bad = server
        .try_request(
            "POST",
            &format!("/api/problems/{}/interactor", id.as_str().unwrap()),
            Some(&json!({"path": interactor, "protocol": "icpc"})),
        )
        .unwrap();
    assert_eq!(bad.0, 422, "{bad:?}");
    assert!(bad.1.contains("unknown protocol `icpc`"), "{bad:?}");
    // The refusal was no attempt; the WA after the AC was one.
    let listed = server.request("GET", "/api/problems", None);
    let entry = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap()
        .clone();
    assert_eq!(entry["solved"], json!(true), "{entry}");
    assert_eq!(entry["attempts"], json!(0), "{entry}");
    assert_page_was_clean(&browser);
    drop(browser);
    server.stop();
}

#[test]
fn practice_page_compares_solutions_in_a_matrix_with_the_first_differing_lines() {
    let (shots, _keep) = screenshot_dir();
    let server = Server::start();
    let id = server.request("POST", "/api/problems", Some(&sum_problem()))["id"].clone();
    let files = tempfile::tempdir().unwrap();
    let brute = files.path().join("brute.py");
    std::fs::write(&brute, CORRECT).unwrap();
    let fast = files.path().join("fast.py");
    std::fs::write(
        &fast,
        "a, b = map(int, input().split())\nprint(a + b if a < 10 else a + b - 1)\n",
    )
    .unwrap();
    let mut browser = Browser::launch();
    browser.goto(&server.url(&format!("/?token={}", server.token)));
    open_problem(&mut browser, &id, "compare");
    browser.eval(&format!(
        "(() => {{ document.getElementById('compare-paths').value = {paths};
            document.getElementById('compare-run').click(); }})()",
        paths = json!(format!("{}\n{}\n", brute.display(), fast.display()))
    ));
    let rows = browser.wait_for(
        "(() => { const t = document.getElementById('compare-matrix'); if (!t) return null;
            return [...t.querySelectorAll('tr')].map((r) => [...r.children].map((c) => c.textContent)); })()",
        Duration::from_secs(120),
    );
    let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap();
    assert_eq!(rows[0], ["Solution", "Verdict", "sample-1", "sample-2"]);
    assert_eq!(rows[1][0], brute.display().to_string());
    assert_eq!(rows[1][1], "AC");
    assert!(
        rows[1][2].starts_with("AC ") && rows[1][2].ends_with(" ms"),
        "{rows:?}"
    );
    assert!(rows[1][3].starts_with("AC "), "{rows:?}");
    assert_eq!(rows[2][1], "WA");
    assert!(rows[2][2].starts_with("AC "), "{rows:?}");
    assert!(rows[2][3].starts_with("WA "), "{rows:?}");
    let diffs = browser.eval("document.getElementById('compare-diffs').innerText");
    let diffs = diffs.as_str().unwrap();
    assert!(diffs.contains("Test sample-2, line 1:"), "{diffs}");
    assert!(
        diffs.contains(&format!("{}: 42", brute.display())),
        "{diffs}"
    );
    assert!(
        diffs.contains(&format!("{}: 41", fast.display())),
        "{diffs}"
    );
    assert!(!diffs.contains("sample-1"), "{diffs}");
    browser.eval("window.scrollTo(0, document.getElementById('compare').offsetTop - 50)");
    browser.screenshot(&shots.join("compare.png"));
    // The same through the API, and kept under its id.
    let matrix = server.request(
        "POST",
        "/api/compare",
        Some(&json!({"problem": id, "solutions": [brute, fast]})),
    );
    assert_eq!(matrix["differences"][0]["outputs"], json!(["42", "41"]));
    let kept = server.request("GET", &format!("/api/compare/{}", matrix["id"]), None);
    assert_eq!(kept["solutions"], matrix["solutions"]);
    assert_page_was_clean(&browser);
    drop(browser);
    server.stop();
}

#[test]
fn practice_console_caps_lines_and_sessions_and_keeps_the_token_check() {
    let server = Server::start();
    server.receive(&guess_problem());
    let files = tempfile::tempdir().unwrap();
    let spin = files.path().join("wait.py");
    // Waits for input forever without using CPU time.
    std::fs::write(
        &spin,
        "import sys\nfor line in sys.stdin:\n    print(line.strip(), flush=True)\n",
    )
    .unwrap();
    let id = received_interactive(&server);
    let start = || {
        server.try_request(
            "POST",
            "/api/console",
            Some(&json!({"problem": id, "path": spin})),
        )
    };
    let first = start().unwrap();
    assert_eq!(first.0, 200, "{first:?}");
    let console: Value = serde_json::from_str(&first.1).unwrap();
    let n = console["id"].as_u64().unwrap();
    // An echo through the real program.
    server.request(
        "POST",
        &format!("/api/console/{n}/send"),
        Some(&json!({"line": "hello"})),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = server.request("GET", &format!("/api/console/{n}"), None);
        let lines = state["lines"].as_array().unwrap();
        if lines
            .iter()
            .any(|l| l["side"] == "received" && l["text"] == "hello")
        {
            break;
        }
        assert!(Instant::now() < deadline, "{state}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let too_long = "x".repeat(4097);
    let sent = server
        .try_request(
            "POST",
            &format!("/api/console/{n}/send"),
            Some(&json!({"line": too_long})),
        )
        .unwrap();
    assert_eq!(sent.0, 413, "{sent:?}");
    let two = server
        .try_request(
            "POST",
            &format!("/api/console/{n}/send"),
            Some(&json!({"line": "a\nb"})),
        )
        .unwrap();
    assert_eq!(two.0, 400, "{two:?}");
    // At most four sessions at once.
    let more: Vec<u16> = (0..4).map(|_| start().unwrap().0).collect();
    assert_eq!(more, [200, 200, 200, 429], "{more:?}");
    // Without the token: refused like every route.
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(
        stream,
        "POST /api/console/{n}/send HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Content-Length: 12\r\nConnection: close\r\n\r\n{{\"line\":\"x\"}}",
        server.port
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    // Closing its input ends the echo; a stopped session says so.
    server.request("POST", &format!("/api/console/{n}/close"), Some(&json!({})));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = server.request("GET", &format!("/api/console/{n}"), None);
        if state["state"] == "ended" {
            assert_eq!(state["ended"]["exit"], json!("exit code 0"), "{state}");
            break;
        }
        assert!(Instant::now() < deadline, "{state}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = server
        .try_request(
            "POST",
            &format!("/api/console/{n}/send"),
            Some(&json!({"line": "x"})),
        )
        .unwrap();
    assert_eq!(after.0, 409, "{after:?}");
    // Nothing to compare solutions with on an interactive problem without its interactor.
    let compared = server
        .try_request(
            "POST",
            "/api/compare",
            Some(&json!({"problem": id, "solutions": [spin, spin]})),
        )
        .unwrap();
    assert_eq!(compared.0, 422, "{compared:?}");
    assert!(compared.1.contains("has no interactor"), "{compared:?}");
    for k in n + 1..n + 4 {
        server.request("POST", &format!("/api/console/{k}/stop"), Some(&json!({})));
    }
    // Stopped, running or still waiting for an engine: each ends, and says it was stopped.
    for k in n + 1..n + 4 {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let state = server.request("GET", &format!("/api/console/{k}"), None);
            if state["state"] == "ended" {
                let why = state["ended"]["stopped"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                assert!(
                    why == "stopped on request" || why == "stopped before it started",
                    "{state}"
                );
                assert_eq!(state["ended"]["verdict"], Value::Null, "{state}");
                break;
            }
            assert!(Instant::now() < deadline, "{state}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    server.stop();
}
