#!/usr/bin/env python3
"""Times `judge verify` against problemtools and BAPCtools on the same Kattis packages.

Two packages of the bench's own (their submissions in bench/peers/, their tests generated here
with a fixed seed), written afresh into a temporary folder:

- `distance`: |a - b| for each line of two numbers (the shape of Kattis' `different`): 9
  submissions in 5 languages (C, C++, Java, Python, Rust) — 5 accepted, 2 wrong answers, a
  run-time error and one that runs out of time —, 3 tests (a sample and 2 secret), the default
  output validator, no time limit in the package (each tool derives it from the accepted ones).
- `sums`: the sum and the maximum of n numbers: 60 tests (3 samples, 57 secret), 3 Python
  submissions (2 accepted, a wrong answer that fails late).

Each tool judges a fresh copy of the package (a new folder: nothing cached in or beside it)
`--rounds` times after one untimed run, interleaved (the order turns each round); the script
prints the medians and the ratios. Every run must find every submission as expected; one that
does not is printed and made again once (BAPCtools stops a run at a wall-clock timeout of
1.5 × the limit + 1 s and calls it a TLE, which a loaded machine can reach with the JVM), and
twice in a row stops the script:

- `judge verify` (the release build; its build cache as it is), `judge verify -j 1`, and
  `judge verify --no-cache`;
- problemtools: `verifyproblem DIR -p data submissions` (exit 0, "0 errors", every submission
  "OK" with its folder's verdict) on the legacy form of the package, as `judge` is timed;
- BAPCtools: `bt run` in DIR (exit 0, every submission's verdict as its folder says) on the
  2025-09 form (BAPCtools reads no other; problemtools reads no 2025-09). `judge` also judges
  that form once, untimed, and must find the same. Neither form states a time limit: each tool
  derives one (all three come to 1 s here: problemtools and `judge` from the accepted ones,
  BAPCtools its default of one `time_resolution`).

The peers are installed from PyPI into a virtual environment (`--venv`, default
~/.cache/judge-bench/peers-venv; made on first use, never in the repository). All three use the
same compilers and interpreters: gcc, g++, javac/java, rustc from PATH, and PyPy for Python —
problemtools and BAPCtools run `.py` with `pypy3` as shipped, and so does `judge` for a Kattis
package when `pypy3` is installed (otherwise the script stops: the comparison would not be
fair). Flags differ as each tool ships them (problemtools and BAPCtools compile C/C++ with `-g`,
problemtools statically). One change to problemtools as shipped: its javac line asks for
`-source 21`, which the JDK 17 here refuses, so a languages.yaml in a configuration folder of
the script's own ($XDG_CONFIG_HOME for that run) drops it. BAPCtools keeps its builds under
$TMPDIR, pointed into the script's scratch folder (removed at the end). `--no-peers` times only
`judge`.

    cargo build --release
    bench/peers.py                       # both packages, 3 rounds
    bench/peers.py --rounds 5 distance
    bench/peers.py --no-peers            # only judge's columns

Run it from the repository root on a quiet machine; it prints the load average before and after.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = ["problemtools", "bapctools"]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def statement(name, text):
    return (
        f"\\problemname{{{name}}}\n\n{text}\n\n"
        "\\section*{Input}\nSee above.\n\n\\section*{Output}\nSee above.\n"
    )


def distance(into):
    """The `different`-shaped package: 3 tests, 9 submissions in 5 languages."""
    write(os.path.join(into, "problem.yaml"), "name: Distance\nsource: judge bench\nlicense: cc0\n")
    write(
        os.path.join(into, "problem_statement", "problem.en.tex"),
        statement("Distance", "Each line holds two integers $0 \\le a, b \\le 10^{15}$: "
                  "print $|a - b|$ for each."),
    )
    rng = random.Random(23)
    tests = {
        # The sample: the first number the larger, all different, small.
        "sample/1": [(10, 3), (1000, 1), (7, 2)],
        # Equal pairs, the second larger, differences below 2^31 (but large enough to be slow
        # counted one by one).
        "secret/1": [(rng.randint(0, 10**9), rng.randint(0, 10**9)) for _ in range(2000)]
        + [(5, 5)],
        # Up to 10^15.
        "secret/2": [(rng.randint(0, 10**15), rng.randint(0, 10**15)) for _ in range(20000)],
    }
    for name, pairs in tests.items():
        write(os.path.join(into, "data", name + ".in"), "".join(f"{a} {b}\n" for a, b in pairs))
        write(os.path.join(into, "data", name + ".ans"), "".join(f"{abs(a - b)}\n" for a, b in pairs))


def sums(into):
    """60 tests, 3 Python submissions."""
    write(os.path.join(into, "problem.yaml"), "name: Sums\nsource: judge bench\nlicense: cc0\n")
    write(
        os.path.join(into, "problem_statement", "problem.en.tex"),
        statement("Sums", "Given $n$ integers, print their sum and their maximum."),
    )
    rng = random.Random(60)
    for k in range(60):
        name = f"sample/{k + 1:02}" if k < 3 else f"secret/{k + 1:02}"
        n = rng.randint(1, 3000) if k < 45 else 5000
        # From test 46 on, every value is negative.
        values = [rng.randint(-10**9, 10**9) if k < 45 else -rng.randint(1, 10**9) for _ in range(n)]
        write(os.path.join(into, "data", name + ".in"), f"{n}\n{' '.join(map(str, values))}\n")
        write(os.path.join(into, "data", name + ".ans"), f"{sum(values)} {max(values)}\n")


PACKAGES = {"distance": distance, "sums": sums}


def make_package(name, into):
    """Writes package `name` into `into` in the legacy format (its tests, its statement, a copy
    of its submissions); returns the expected verdict of each submission, by path relative to
    the package."""
    PACKAGES[name](into)
    shutil.copytree(os.path.join(HERE, "peers", name, "submissions"), os.path.join(into, "submissions"))
    expected = {}
    for folder in sorted(os.listdir(os.path.join(into, "submissions"))):
        for f in sorted(os.listdir(os.path.join(into, "submissions", folder))):
            expected[f"submissions/{folder}/{f}"] = folder
    return expected


def current_form(legacy, into):
    """The same package in the 2025-09 format (BAPCtools reads no other; problemtools reads
    legacy and 2023-07-draft only): `statement/`, the format version and a fixed uuid (BAPCtools
    would otherwise write one into problem.yaml). No time limit either way: derived."""
    shutil.copytree(legacy, into)
    os.rename(os.path.join(into, "problem_statement"), os.path.join(into, "statement"))
    with open(os.path.join(legacy, "problem.yaml")) as f:
        yaml = f.read()
    write(os.path.join(into, "problem.yaml"),
          "problem_format_version: 2025-09\n" + yaml + "uuid: 5e3c9a1e-0b7d-4c2a-9f1e-23a5b0c4d6e8\n")


class Unexpected(Exception):
    """A tool found otherwise than the package expects (printed, then the run is made again once:
    a peer that measures wall-clock time can misjudge on a loaded machine)."""


CODES = {
    "accepted": "AC",
    "wrong_answer": "WA",
    "time_limit_exceeded": "TLE",
    "run_time_error": "RE",
}


def run_judge(judge, package, expected, extra):
    """`judge verify` on `package`; fails unless every submission is as expected."""
    cmd = [judge, "verify", "--format", "json", *extra, package]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        raise Unexpected(f"{' '.join(cmd)}: no JSON document (exit {done.returncode})\n{done.stderr}")
    problem = doc["problems"][0]
    found = {}
    for s in problem["solutions"]:
        rel = os.path.relpath(s["file"], package) if os.path.isabs(s["file"]) else s["file"]
        found[rel] = (s.get("verdict"), s.get("ok"))
    want = {rel: (CODES[v], True) for rel, v in expected.items()}
    if done.returncode != 0 or found != want or problem["findings"]:
        raise Unexpected(
            f"{' '.join(cmd)}: exit {done.returncode}, not as expected:\n"
            f"found {found}\nwanted {want}\nfindings {problem['findings']}\n{done.stderr[-3000:]}"
        )
    return problem.get("package", {}).get("time_limit_ms")


def run_problemtools(env, package, expected):
    cmd = ["verifyproblem", package, "-p", "data", "submissions"]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    out = done.stdout
    # "… tested: 0 errors, N warnings"; each submission "   accepted/x.c (C) OK: AC [CPU: …]".
    ok = done.returncode == 0 and re.search(r"tested: 0 errors", out)
    for rel, verdict in expected.items():
        want = CODES[verdict].replace("RE", "RTE")
        line = rf"^\s*{re.escape(rel.removeprefix('submissions/'))} \(.*\) OK: {want}\b"
        if not re.search(line, out, re.M):
            ok = False
    if not ok:
        raise Unexpected(f"{' '.join(cmd)}: exit {done.returncode}, not as expected:\n{out[-4000:]}")


def run_bapctools(env, package, expected):
    cmd = ["bt", "run", "--no-bar"]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          cwd=package, env=env)
    out = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", done.stdout)
    # "accepted/dist.c:               AC 0.008s @ secret/2"
    ok = done.returncode == 0
    for rel, verdict in expected.items():
        want = CODES[verdict].replace("RE", "RTE")
        line = rf"^{re.escape(rel.removeprefix('submissions/'))}:\s+{want}\b"
        if not re.search(line, out, re.M):
            ok = False
    if not ok:
        raise Unexpected(f"bt run in {package}: exit {done.returncode}, not as expected:\n{out[-4000:]}")


def peers_env(venv, scratch):
    """The peers' environment: their virtual environment first on PATH; temporary files in the
    scratch folder (BAPCtools keeps its builds in $TMPDIR/bapctools_*); problemtools' own
    configuration folder, whose languages.yaml drops `-source 21` from javac (the JDK here is
    older; the same javac and java otherwise)."""
    env = dict(os.environ)
    env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = venv
    env["TMPDIR"] = os.path.join(scratch, "tmp")
    os.makedirs(env["TMPDIR"], exist_ok=True)
    env["XDG_CONFIG_HOME"] = os.path.join(scratch, "config")
    write(os.path.join(env["XDG_CONFIG_HOME"], "problemtools", "languages.yaml"),
          "java:\n    compile: 'javac -encoding UTF-8 -sourcepath {path} -d {path} {files}'\n")
    return env


def install_peers(venv):
    """The peers' virtual environment, made and filled from PyPI when missing."""
    if all(os.access(os.path.join(venv, "bin", b), os.X_OK) for b in ("verifyproblem", "bt")):
        return
    print(f"installing problemtools and BAPCtools into {venv} …", flush=True)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--quiet", *PEERS], check=True)


def versions(venv):
    pip = os.path.join(venv, "bin", "pip")
    shown = subprocess.run([pip, "show", *PEERS], stdout=subprocess.PIPE, text=True).stdout
    names = re.findall(r"^Name: (.*)$", shown, re.M)
    vers = re.findall(r"^Version: (.*)$", shown, re.M)
    return ", ".join(f"{n} {v}" for n, v in zip(names, vers))


def columns(args, scratch):
    """(label, the package's form, function(package, expected)) for every column."""
    judge = args.judge
    found = [
        ("judge verify", "legacy", lambda p, e: run_judge(judge, p, e, [])),
        ("judge -j 1", "legacy", lambda p, e: run_judge(judge, p, e, ["-j", "1"])),
        ("judge --no-cache", "legacy", lambda p, e: run_judge(judge, p, e, ["--no-cache"])),
    ]
    if args.before:
        before = os.path.abspath(args.before)
        found += [
            ("before verify", "legacy", lambda p, e: run_judge(before, p, e, [])),
            ("before -j 1", "legacy", lambda p, e: run_judge(before, p, e, ["-j", "1"])),
        ]
    if not args.no_peers:
        env = peers_env(args.venv, scratch)
        found += [
            ("problemtools", "legacy", lambda p, e: run_problemtools(env, p, e)),
            ("bt run", "2025-09", lambda p, e: run_bapctools(env, p, e)),
        ]
    return [c for c in found if not args.only or any(c[0].startswith(o) for o in args.only)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", default=list(PACKAGES),
                        help=f"of {', '.join(PACKAGES)} (default: both)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--judge", default="target/release/judge")
    parser.add_argument("--venv", default=os.path.expanduser("~/.cache/judge-bench/peers-venv"))
    parser.add_argument("--no-peers", action="store_true", help="time only judge")
    parser.add_argument("--only", action="append", default=[],
                        help="time only the columns whose label starts with this (repeatable)")
    parser.add_argument("--before", metavar="JUDGE",
                        help="also time this judge binary's `verify` and `verify -j 1` (an "
                             "earlier build), interleaved with the others")
    args = parser.parse_args()
    # Killed: the scratch folder goes too (the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    for name in args.packages:
        if name not in PACKAGES:
            sys.exit(f"no package {name!r}: the bench has {', '.join(PACKAGES)}")
    if not os.access(args.judge, os.X_OK):
        sys.exit(f"{args.judge}: not built (cargo build --release), or give --judge PATH")
    args.judge = os.path.abspath(args.judge)
    if not shutil.which("pypy3"):
        sys.exit("pypy3 is not installed: problemtools and BAPCtools run Python with it as "
                 "shipped, and judge with CPython without it — install pypy3 for a fair comparison")
    if not args.no_peers:
        install_peers(args.venv)
        print(versions(args.venv))
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    scratch = tempfile.mkdtemp(prefix="peers-bench-")
    results = {}
    retried = []
    try:
        cols = columns(args, scratch)
        for name in args.packages:
            forms = {"legacy": os.path.join(scratch, "source", "legacy", name)}
            expected = make_package(name, forms["legacy"])
            forms["2025-09"] = os.path.join(scratch, "source", "2025-09", name)
            current_form(forms["legacy"], forms["2025-09"])
            serial = 0

            def timed(form, run, again=True):
                """Seconds `run` takes on a fresh copy of the package (removed after); a run
                that finds otherwise than expected is told and made once more."""
                nonlocal serial
                serial += 1
                copy = os.path.join(scratch, f"{name}-{serial}", name)
                shutil.copytree(forms[form], copy)
                start = time.monotonic()
                try:
                    run(copy, expected)
                except Unexpected as e:
                    if not again:
                        sys.exit(f"{e}\n(twice in a row: stopping)")
                    print(f"{e}\n(made again once; counted in the summary)", flush=True)
                    retried.append(name)
                    shutil.rmtree(os.path.dirname(copy))
                    return timed(form, run, again=False)
                seconds = time.monotonic() - start
                shutil.rmtree(os.path.dirname(copy))
                return seconds

            # Untimed: file caches, judge's build cache; judge also judges the 2025-09 form the
            # same (the form BAPCtools reads).
            timed("2025-09", lambda p, e: run_judge(args.judge, p, e, []))
            for label, form, run in cols:
                timed(form, run)
            times = {label: [] for label, _, _ in cols}
            for r in range(args.rounds):
                # Interleaved, the order turning each round, so a passing load hits all alike.
                turn = cols[r % len(cols):] + cols[: r % len(cols)]
                for label, form, run in turn:
                    times[label].append(timed(form, run))
                print(f"{name} round {r + 1}: " + ", ".join(
                    f"{label} {times[label][-1]:.2f} s" for label, _, _ in cols), flush=True)
            results[name] = {label: statistics.median(t) for label, t in times.items()}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if retried:
        print(f"runs not as expected the first time, made again: {len(retried)} ({', '.join(retried)})")
    labels = [label for label, _, _ in cols]
    print(f"\nmedians of {args.rounds} rounds after one untimed run, every verdict as expected "
          f"by all ({os.cpu_count()} CPUs); in brackets, how many times `judge verify`'s:")
    print("| package | " + " | ".join(labels) + " |")
    print("|---" * (len(labels) + 1) + "|")
    for name, medians in results.items():
        base = medians.get("judge verify")
        cells = []
        for label in labels:
            cell = f"{medians[label]:.2f} s"
            if base and label != "judge verify":
                cell += f" ({medians[label] / base:.1f}×)"
            cells.append(cell)
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
