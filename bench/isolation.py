#!/usr/bin/env python3
"""Isolation cost benchmark (not a test: the numbers depend on the machine and its load).

Judges a problem with 200 tiny tests and compares the judge's per-test time with a bare
fork+exec+compare loop (bench/floor.c) over the same binary and tests, interleaved in one run.
The judge's per-test time is (T(200 tests) - T(1 test)) / 199, which removes start-up and
compilation. Medians over ROUNDS rounds.

Usage: python3 bench/isolation.py [ROUNDS]     (default 7; run as root for the full sandbox)
Needs only cargo, gcc and Python 3.
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


def make_problem(path, count):
    os.makedirs(os.path.join(path, "tests"))
    with open(os.path.join(path, "problem.toml"), "w") as f:
        f.write('name = "bench"\n\n[limits]\ntime_limit = 1.0\nmemory = 64\n')
    for i in range(1, count + 1):
        for ext in ("in", "ans"):
            with open(os.path.join(path, "tests", f"{i}.{ext}"), "w") as f:
                f.write(f"{i}\n")


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    judge = os.path.join(ROOT, "target", "release", "judge")
    with tempfile.TemporaryDirectory() as work:
        many, one = os.path.join(work, "many"), os.path.join(work, "one")
        make_problem(many, TESTS)
        make_problem(one, 1)
        source = os.path.join(work, "echo.c")
        with open(source, "w") as f:
            f.write('#include <stdio.h>\nint main(void) { long x; if (scanf("%ld", &x) == 1) '
                    'printf("%ld\\n", x); return 0; }\n')
        echo, floor = os.path.join(work, "echo"), os.path.join(work, "floor")
        subprocess.run(["gcc", "-O2", "-o", echo, source], check=True)
        subprocess.run(["gcc", "-O2", "-o", floor, os.path.join(ROOT, "bench", "floor.c")], check=True)

        def judge_seconds(problem):
            start = time.monotonic()
            out = subprocess.run([judge, "run", problem, source, "--json"],
                                 capture_output=True, text=True)
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
        f, j = statistics.median(floors) * 1000, statistics.median(judges) * 1000
        print(f"isolation:            {level}")
        print(f"rounds:               {rounds} (medians; {TESTS} tests each)")
        print(f"floor fork+exec+cmp:  {f:.3f} ms per test")
        print(f"judge:                {j:.3f} ms per test")
        print(f"isolation overhead:   {j - f:.3f} ms per test")


if __name__ == "__main__":
    main()
