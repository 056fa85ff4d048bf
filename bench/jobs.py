#!/usr/bin/env python3
"""Times `judge verify -j 1` against `judge verify -j 2` (or -j N) on the same problems.

Rounds are interleaved (the order of the two alternates from round to round) so that a load that
comes and goes hits both alike; the medians and their ratio are printed with the load average.
The verdicts and findings of every run must be the same, or the script fails.

    bench/jobs.py                          # black-white-board, 5 rounds, -j 1 vs -j 2
    bench/jobs.py --rounds 3 snake huarong-road
    bench/jobs.py --jobs 4 --judge target/release/judge
    bench/jobs.py --without time_limit_exceeded black-white-board

A solution expected to run out of time runs its tests with no other job running (its TLE would be
judged again alone anyway), so that part does not get faster with more jobs: `--without VERDICT`
judges a copy of each native problem (in a temporary folder) without its VERDICT solutions, to
time the part that does. Each run also reports the CPU time the whole machine spent (from
/proc/stat): the speed-up cannot pass the CPU time over the CPUs.

Run it from the repository root on a quiet machine (`uptime` should show a load well below the
number of CPUs); build the judge first (`cargo build --release`).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def busy_seconds():
    """CPU seconds the machine has spent busy since boot (all CPUs)."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def verify(judge, problems, jobs):
    """Wall-clock seconds of one `judge verify`, and what it found (verdicts and findings)."""
    cmd = [judge, "verify", "--format", "json", "-j", str(jobs), *problems]
    start, busy = time.monotonic(), busy_seconds()
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    seconds = time.monotonic() - start
    verify.busy = busy_seconds() - busy
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        sys.exit(f"{' '.join(cmd)}: no JSON document (exit {done.returncode})")
    found = [
        (
            os.path.basename(p["problem"]),
            [(s["file"], s.get("verdict", "skipped"), s.get("ok")) for s in p["solutions"]],
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
    parser.add_argument("--without", metavar="VERDICT",
                        help="judge copies of the problems without this verdict folder's solutions")
    args = parser.parse_args()
    if not os.access(args.judge, os.X_OK):
        sys.exit(f"{args.judge}: not built (cargo build --release), or give --judge PATH")
    args.judge = os.path.abspath(args.judge)
    label = " ".join(args.problems)
    if args.without:
        label += f" (without {args.without})"
        copies = tempfile.mkdtemp(prefix="jobs-bench-")
        try:
            args.problems = [without(p, args.without, copies) for p in args.problems]
            run(args, label)
        finally:
            shutil.rmtree(copies)
    else:
        run(args, label)


def without(problem, verdict, into):
    """A copy of native problem `problem` (a name under problems/ or a path) whose solutions
    are in its own solutions/ folder, less the `verdict` folder."""
    source = problem if os.path.isdir(problem) else os.path.join("problems", problem)
    slug = os.path.basename(os.path.normpath(source))
    solutions = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(source))),
                             "solutions", slug)
    if not os.path.isdir(os.path.join(solutions, verdict)):
        sys.exit(f"{solutions}/{verdict}: no such folder of solutions")
    copy = os.path.join(into, slug)
    shutil.copytree(source, copy)
    shutil.copytree(solutions, os.path.join(copy, "solutions"),
                    ignore=lambda d, names: [verdict] if d == solutions else [])
    return copy


def run(args, label):

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    # One warm-up run of each: file caches, and the build cache when there is one.
    _, reference = verify(args.judge, args.problems, 1)
    _, other = verify(args.judge, args.problems, args.jobs)
    if other != reference:
        sys.exit(f"-j {args.jobs} found otherwise than -j 1:\n{other}\n{reference}")
    times = {1: [], args.jobs: []}
    busy = {1: [], args.jobs: []}
    for r in range(args.rounds):
        order = [1, args.jobs] if r % 2 == 0 else [args.jobs, 1]
        for jobs in order:
            seconds, found = verify(args.judge, args.problems, jobs)
            if found != reference:
                sys.exit(f"round {r + 1}, -j {jobs}: other verdicts:\n{found}\n{reference}")
            times[jobs].append(seconds)
            busy[jobs].append(verify.busy)
        print(
            f"round {r + 1}: -j 1 {times[1][-1]:.2f} s, -j {args.jobs} {times[args.jobs][-1]:.2f} s",
            flush=True,
        )
    one = statistics.median(times[1])
    many = statistics.median(times[args.jobs])
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"judge verify {label}: median -j 1 {one:.2f} s, "
        f"-j {args.jobs} {many:.2f} s, speed-up {one / many:.2f}x "
        f"({args.rounds} rounds, {os.cpu_count()} CPUs); verdicts identical; "
        f"machine busy {statistics.median(busy[1]):.2f} / "
        f"{statistics.median(busy[args.jobs]):.2f} CPU-s"
    )


if __name__ == "__main__":
    main()
