#!/usr/bin/env python3
"""Times `judge verify -j 1` against `judge verify -j 2` (or -j N) on the same problems.

Rounds are interleaved (the order of the two alternates from round to round) so that a load that
comes and goes hits both alike; the medians and their ratio are printed with the load average.
The verdicts and findings of every run must be the same, or the script fails.

    bench/jobs.py                          # black-white-board, 5 rounds, -j 1 vs -j 2
    bench/jobs.py --rounds 3 snake huarong-road
    bench/jobs.py --jobs 4 --judge target/release/judge

Run it from the repository root on a quiet machine (`uptime` should show a load well below the
number of CPUs); build the judge first (`cargo build --release`).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def verify(judge, problems, jobs):
    """Wall-clock seconds of one `judge verify`, and what it found (verdicts and findings)."""
    cmd = [judge, "verify", "--format", "json", "-j", str(jobs), *problems]
    start = time.monotonic()
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    seconds = time.monotonic() - start
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        sys.exit(f"{' '.join(cmd)}: no JSON document (exit {done.returncode})")
    found = [
        (
            p["problem"],
            [(s["solution"], s["verdict"], s["matches"]) for s in p["solutions"]],
            sorted(f["message"] for f in p["findings"]),
        )
        for p in doc["problems"]
    ]
    return seconds, (done.returncode, found)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems", nargs="*", default=["black-white-board"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2, help="compared with -j 1 (default 2)")
    parser.add_argument("--judge", default="target/release/judge")
    args = parser.parse_args()
    if not os.access(args.judge, os.X_OK):
        sys.exit(f"{args.judge}: not built (cargo build --release), or give --judge PATH")

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    # One warm-up run of each: file caches, and the build cache when there is one.
    _, reference = verify(args.judge, args.problems, 1)
    _, other = verify(args.judge, args.problems, args.jobs)
    if other != reference:
        sys.exit(f"-j {args.jobs} found otherwise than -j 1:\n{other}\n{reference}")
    times = {1: [], args.jobs: []}
    for r in range(args.rounds):
        order = [1, args.jobs] if r % 2 == 0 else [args.jobs, 1]
        for jobs in order:
            seconds, found = verify(args.judge, args.problems, jobs)
            if found != reference:
                sys.exit(f"round {r + 1}, -j {jobs}: other verdicts:\n{found}\n{reference}")
            times[jobs].append(seconds)
        print(
            f"round {r + 1}: -j 1 {times[1][-1]:.2f} s, -j {args.jobs} {times[args.jobs][-1]:.2f} s",
            flush=True,
        )
    one = statistics.median(times[1])
    many = statistics.median(times[args.jobs])
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"judge verify {' '.join(args.problems)}: median -j 1 {one:.2f} s, "
        f"-j {args.jobs} {many:.2f} s, speed-up {one / many:.2f}x "
        f"({args.rounds} rounds, {os.cpu_count()} CPUs); verdicts identical"
    )


if __name__ == "__main__":
    main()
