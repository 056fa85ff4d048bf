"""Brute force for black-white-board, written apart from the reference to cross-check it.

Plain breadth-first search over boards kept as 16-character strings, storing for each board the
whole move list that reached it. No bit tricks, no parent array: slow but obviously right, and the
state space (at most 12870 boards) is small enough that it still answers every test.
"""
import sys
from collections import deque

digits = [ch for ch in sys.stdin.read() if ch in "01"]
start, target = "".join(digits[:16]), "".join(digits[16:32])

# Adjacent pairs as ((row, column), (row, column)), 0-based.
pairs = []
for r in range(4):
    for c in range(4):
        if c + 1 < 4:
            pairs.append(((r, c), (r, c + 1)))
        if r + 1 < 4:
            pairs.append(((r, c), (r + 1, c)))

path_to = {start: []}
queue = deque([start])
while target not in path_to:
    board = queue.popleft()
    for (r1, c1), (r2, c2) in pairs:
        i, j = 4 * r1 + c1, 4 * r2 + c2
        if board[i] == board[j]:
            continue  # swapping two equal pieces changes nothing
        cells = list(board)
        cells[i], cells[j] = cells[j], cells[i]
        nxt = "".join(cells)
        if nxt not in path_to:
            path_to[nxt] = path_to[board] + [(r1, c1, r2, c2)]
            queue.append(nxt)

moves = path_to[target]
print(len(moves))
for r1, c1, r2, c2 in moves:
    print(f"{r1 + 1}{c1 + 1}{r2 + 1}{c2 + 1}")
