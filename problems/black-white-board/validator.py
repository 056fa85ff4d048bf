"""black-white-board input validator: reads one test on stdin, exits 0 if it is valid, otherwise 1
with the reason on stderr.

Exact format: the start board as 4 lines of 4 characters `0`/`1`, then at most one empty line,
then the target board the same way; every line ends with `\n` (so the file does too), and
nothing else (no spaces, no `\r`, no trailing empty lines). Each board holds exactly 8 ones.
"""
import sys


def fail(why):
    sys.stderr.write(why + "\n")
    sys.exit(1)


data = sys.stdin.buffer.read()
if not data.endswith(b"\n"):
    fail("the input must end with a newline")
lines = data[:-1].split(b"\n")
if len(lines) == 9:
    if lines[4] != b"":
        fail(f"line 5: expected the empty line between the boards, found {lines[4]!r}")
    rows = lines[:4] + lines[5:]
elif len(lines) == 8:
    rows = lines
else:
    fail(f"expected 8 board lines with at most one empty line between the boards, found {len(lines)} lines")

for i, row in enumerate(rows):
    if len(row) != 4 or any(ch not in b"01" for ch in row):
        fail(f"board row {i + 1}: {row!r} is not 4 characters 0/1")

for name, board in (("start", b"".join(rows[:4])), ("target", b"".join(rows[4:]))):
    ones = board.count(b"1")
    if ones != 8:
        fail(f"the {name} board holds {ones} ones; each board must hold exactly 8")
