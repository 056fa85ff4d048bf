# Snake, brute force: BFS over whole snake bodies (tuples of cells), simulated move by move.
# Correct, and independent of the bit-packed reference, but far too slow on open 15x15 boards.
import sys
from collections import deque

data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
grid = data[2:2 + n]
segments = {}
apple = None
for r in range(n):
    for c in range(m):
        ch = grid[r][c]
        if ch == "@":
            apple = (r, c)
        elif ch.isdigit():
            segments[int(ch)] = (r, c)
start = tuple(segments[i] for i in sorted(segments))
seen = {start}
queue = deque([(start, 0)])
answer = -1
while queue and answer < 0:
    body, dist = queue.popleft()
    r, c = body[0]
    for nr, nc in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
        if not (0 <= nr < n and 0 <= nc < m) or grid[nr][nc] == "#":
            continue
        moved = ((nr, nc),) + body[:-1]
        if (nr, nc) in moved[1:]:
            continue
        if (nr, nc) == apple:
            answer = dist + 1
            break
        if moved not in seen:
            seen.add(moved)
            queue.append((moved, dist + 1))
print(answer)
