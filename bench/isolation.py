#!/usr/bin/env python3
"""Isolation cost benchmark (not a test: the numbers depend on the machine and its load).

Judges a problem with 200 tiny tests and compares the judge's per-test time with a bare
fork+exec+compare loop (bench/floor.c) over the same binary and tests, interleaved in one run.
The judge's per-test time is (T(200 tests) - T(1 test)) / 199, which removes start-up and
compilation. Medians over ROUNDS rounds.

Two modes of the kernel's cgroup `favordynmods` setting (see README.md):
  default         what every judge gets unless asked otherwise; always measured, first.
  favordynmods    only with --favordynmods, after the default mode: the judges of that part get
                  JUDGE_CGROUP_FAVORDYNMODS=1, which turns the mode on for the whole machine
                  until reboot (the kernel cannot turn it off). Once it is on, the default mode
                  cannot be measured again before a reboot: the script says so when it finds the
                  mode on (the judge's marker for this boot, or the kernel's own signs).

Usage: python3 bench/isolation.py [ROUNDS] [--favordynmods]   (default 7 rounds; run as root
for the full sandbox). Needs only cargo, gcc and Python 3. JUDGE=path measures that judge binary
instead of building this tree's.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

TESTS = 200
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = "JUDGE_CGROUP_FAVORDYNMODS"
# Where judges leave their marker (the boot id) after turning the mode on: next to the uid
# leases (src/sandbox/isolated/lease.rs, LEASE_DIRS).
MARKERS = ["/run/judge/favordynmods", "/tmp/judge-uids/favordynmods"]


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def favordynmods_on():
    """Why the mode is (or may be) on this boot, or None."""
    boot = read("/proc/sys/kernel/random/boot_id").strip()
    for marker in MARKERS:
        if boot and read(marker).strip() == boot:
            return f"a judge turned it on this boot ({marker} holds this boot's id)"
    for line in read("/proc/self/mounts").splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2].startswith("cgroup") and "favordynmods" in fields[3].split(","):
            return f"{fields[1]} is mounted with favordynmods"
    for arg in read("/proc/cmdline").split():
        if arg.split("=", 1)[0] == "cgroup_favordynmods" and arg.split("=", 1)[-1] in ("1", "y", "Y", "true", "on"):
            return f"the kernel was booted with {arg}"
    return None


def make_problem(path, count):
    os.makedirs(os.path.join(path, "tests"))
    with open(os.path.join(path, "problem.toml"), "w") as f:
        f.write('name = "bench"\n\n[limits]\ntime_limit = 1.0\nmemory = 64\n')
    for i in range(1, count + 1):
        for ext in ("in", "ans"):
            with open(os.path.join(path, "tests", f"{i}.{ext}"), "w") as f:
                f.write(f"{i}\n")


def measure(judge, env, work, rounds):
    many, one = os.path.join(work, "many"), os.path.join(work, "one")
    source, echo, floor = (os.path.join(work, n) for n in ("echo.c", "echo", "floor"))

    def judge_seconds(problem):
        start = time.monotonic()
        out = subprocess.run([judge, "run", problem, source, "--json"],
                             capture_output=True, text=True, env=env)
        elapsed = time.monotonic() - start
        doc = json.loads(out.stdout)
        if doc["verdict"] != "AC":
            sys.exit(f"the judge did not accept the benchmark solution: {out.stdout}")
        return elapsed, doc["isolation"]

    floors, judges, level = [], [], None
    for _ in range(rounds):
        out = subprocess.run([floor, echo, os.path.join(many, "tests"), str(TESTS)],
                             capture_output=True, text=True, check=True)
        floors.append(float(out.stdout) / TESTS)
        t_many, level = judge_seconds(many)
        t_one, _ = judge_seconds(one)
        judges.append((t_many - t_one) / (TESTS - 1))
    return level, statistics.median(floors) * 1000, statistics.median(judges) * 1000


def report(mode, rounds, level, f, j):
    print(f"mode:                 {mode}")
    print(f"isolation:            {level}")
    print(f"rounds:               {rounds} (medians; {TESTS} tests each)")
    print(f"floor fork+exec+cmp:  {f:.3f} ms per test")
    print(f"judge:                {j:.3f} ms per test")
    print(f"isolation overhead:   {j - f:.3f} ms per test")


def main():
    args = sys.argv[1:]
    with_mode = "--favordynmods" in args
    args = [a for a in args if a != "--favordynmods"]
    rounds = int(args[0]) if args else 7
    # JUDGE=path: measure that build instead (e.g. a copy of an older one, to compare).
    judge = os.environ.get("JUDGE")
    if not judge:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        judge = os.path.join(ROOT, "target", "release", "judge")
    default_env = {k: v for k, v in os.environ.items() if k != ENV}
    with tempfile.TemporaryDirectory() as work:
        make_problem(os.path.join(work, "many"), TESTS)
        make_problem(os.path.join(work, "one"), 1)
        with open(os.path.join(work, "echo.c"), "w") as f:
            f.write('#include <stdio.h>\nint main(void) { long x; if (scanf("%ld", &x) == 1) '
                    'printf("%ld\\n", x); return 0; }\n')
        subprocess.run(["gcc", "-O2", "-o", os.path.join(work, "echo"),
                        os.path.join(work, "echo.c")], check=True)
        subprocess.run(["gcc", "-O2", "-o", os.path.join(work, "floor"),
                        os.path.join(ROOT, "bench", "floor.c")], check=True)

        already = favordynmods_on()
        report("default (favordynmods not asked for)", rounds,
               *measure(judge, default_env, work, rounds))
        if already:
            print(f"WARNING: these default-mode numbers are INVALID: favordynmods is already on "
                  f"this boot ({already}); it lasts until reboot. Reboot, then run this script "
                  f"before anything turns the mode on.")
        if with_mode:
            print()
            print("favordynmods: asked for (--favordynmods); the first judge turns it on for the "
                  "whole machine, until reboot")
            report("favordynmods", rounds,
                   *measure(judge, dict(default_env, **{ENV: "1"}), work, rounds))
            if not favordynmods_on():
                print("WARNING: no sign of the mode after the run: the judge could not turn it "
                      "on (see `judge doctor`); these numbers are the default mode's")


if __name__ == "__main__":
    main()
