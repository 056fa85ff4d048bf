"""black-white-board input validator: exit 0 when valid, otherwise 1 with the reason on stderr.

Format: 4 lines of 4 digits 0/1 (the start), optionally one empty line, 4 lines (the target).
Both boards hold exactly 8 ones.
"""
import re
import sys


def fail(why):
    sys.stderr.write(why + "\n")
    sys.exit(1)


data = sys.stdin.buffer.read().decode("ascii", errors="replace")
if not data.endswith("\n"):
    fail("the input must end with a newline")
lines = data[:-1].split("\n")
if len(lines) == 9:
    if lines[4] != "":
        fail("line 5: only an empty line may separate the boards")
    lines = lines[:4] + lines[5:]
if len(lines) != 8:
    fail(f"expected 8 board lines (plus at most one empty line), found {len(lines)} lines")
for i, row in enumerate(lines):
    if not re.fullmatch(r"[01]{4}", row):
        fail(f"board line {i + 1}: `{row}` is not 4 digits 0/1")
start, target = "".join(lines[:4]), "".join(lines[4:])
for name, board in (("start", start), ("target", target)):
    if board.count("1") != 8:
        fail(f"the {name} board has {board.count('1')} ones; both boards must have exactly 8")
