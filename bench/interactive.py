#!/usr/bin/env python3
"""What an interactive exchange costs: N round trips of one line each way, judged by
`judge run` (two sandboxes joined by direct pipes) and by `judge run --transcript` (the judge
relaying both pipes, to keep the exchange), against the same two programs joined by bare pipes
outside any sandbox (the floor). Prints the wall time of each (the median of the rounds, [the fastest–the slowest]), per round trip.

    cargo build --release && python3 bench/interactive.py [--trips 200000] [--rounds 3] [--load 2]
        [--before OTHER_JUDGE]

`--load N` keeps N busy processes (each a loop spinning on one CPU) running beside every
measurement, as on a machine judging other submissions. `--before` times another build of the
judge (direct pipes) in the same rounds, interleaved.

The solution's CPU time is what a verdict depends on; the wall time shows what the judge adds
(with the relay, two more hops per round trip), which counts against the solution's
wall-clock limit only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JUDGE = os.path.join(ROOT, "target", "release", "judge")

INTERACTOR = r"""
#include <cstdio>
int main(int argc, char **argv) {
    FILE *in = fopen(argv[1], "r");
    int n;
    if (fscanf(in, "%d", &n) != 1) return 1;
    printf("%d\n", n);
    fflush(stdout);
    for (int i = 0; i < n; i++) {
        printf("%d\n", i);
        fflush(stdout);
        int x;
        if (scanf("%d", &x) != 1 || x != i + 1) return 43;
    }
    return 42;
}
"""

SOLUTION = r"""
#include <cstdio>
int main() {
    int n;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        int x;
        if (scanf("%d", &x) != 1) return 1;
        printf("%d\n", x + 1);
        fflush(stdout);
    }
}
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def package(folder, trips):
    write(os.path.join(folder, "problem.yaml"),
          "problem_format_version: 2025-09\ntype: interactive\nname:\n  en: Ping pong\n"
          "limits:\n  time_limit: 30.0\n  memory: 256\n")
    write(os.path.join(folder, "data", "secret", "1.in"), f"{trips}\n")
    write(os.path.join(folder, "data", "secret", "1.ans"), f"{trips}\n")
    write(os.path.join(folder, "output_validator", "validator.cpp"), INTERACTOR)
    write(os.path.join(folder, "submissions", "accepted", "pong.cpp"), SOLUTION)


def judged(folder, relay=False, judge=JUDGE):
    start = time.perf_counter()
    extra = ["--transcript"] if relay else []
    out = subprocess.run([judge, "run", folder,
                          os.path.join(folder, "submissions", "accepted", "pong.cpp"), "--json",
                          *extra],
                         capture_output=True, text=True)
    took = time.perf_counter() - start
    doc = json.loads(out.stdout)
    if doc["verdict"] != "AC":
        sys.exit(f"judge gave {doc['verdict']}: {out.stdout[:2000]}")
    test = doc["tests"][0]
    return test["wall_ms"] / 1000, test["time_ms"] / 1000, took


def bare(folder, trips):
    """Both programs built with the same flags, joined by two pipes, no sandbox."""
    exe = {}
    for name, src in [("v", "output_validator/validator.cpp"),
                      ("s", "submissions/accepted/pong.cpp")]:
        exe[name] = os.path.join(folder, name)
        subprocess.run(["g++", "-O2", "-o", exe[name], os.path.join(folder, src)], check=True)
    start = time.perf_counter()
    s = subprocess.Popen([exe["s"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    v = subprocess.Popen([exe["v"], os.path.join(folder, "data", "secret", "1.in"), "-", "-"],
                         stdin=s.stdout, stdout=s.stdin)
    s.stdin.close()
    s.stdout.close()
    code = v.wait()
    s.wait()
    if code != 42:
        sys.exit(f"the bare pair ended with {code}")
    return time.perf_counter() - start


def busy(n):
    """N processes spinning on a CPU each (stopped by the caller)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trips", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--load", type=int, default=0,
                    help="busy processes running beside every measurement")
    ap.add_argument("--before", help="another build of judge, timed in the same rounds")
    args = ap.parse_args()
    if not os.path.exists(JUDGE):
        sys.exit(f"{JUDGE} is missing: cargo build --release first")
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "pingpong")
        package(folder, args.trips)
        judged(folder)  # builds, and warms the build cache
        if args.before:
            judged(folder, judge=args.before)
        spinning = busy(args.load)
        try:
            walls, cpus, relayed, floors, befores = [], [], [], [], []
            before = os.getloadavg()[0]
            for _ in range(args.rounds):
                wall, cpu, _ = judged(folder)
                walls.append(wall)
                cpus.append(cpu)
                relayed.append(judged(folder, relay=True)[0])
                if args.before:
                    befores.append(judged(folder, judge=args.before)[0])
                floors.append(bare(folder, args.trips))
            load = os.getloadavg()[0]
        finally:
            for p in spinning:
                p.kill()
                p.wait()
        wall, cpu, relay, floor = (statistics.median(x)
                                   for x in (walls, cpus, relayed, floors))
        per = 1e6 / args.trips
        spread = lambda xs: f"[{min(xs):.2f}–{max(xs):.2f}]"
        print(f"{args.trips} round trips, {args.rounds} rounds, {args.load} busy processes, "
              f"load {before:.1f} before, {load:.1f} after")
        print(f"  bare pipes:  {floor:.2f} s wall {spread(floors)} ({floor * per:.1f} us per trip)")
        print(f"  judge:       {wall:.2f} s wall {spread(walls)} ({wall * per:.1f} us per trip), "
              f"solution CPU {cpu:.2f} s: {wall / floor:.2f}x")
        print(f"  --transcript (relay): {relay:.2f} s wall ({relay * per:.1f} us per trip): "
              f"{relay / floor:.2f}x")
        if befores:
            b = statistics.median(befores)
            print(f"  before ({args.before}): {b:.2f} s wall {spread(befores)} "
                  f"({b * per:.1f} us per trip): {b / floor:.2f}x")


if __name__ == "__main__":
    main()
