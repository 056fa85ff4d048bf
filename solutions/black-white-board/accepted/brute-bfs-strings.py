"""Brute force for black-white-board, written apart from the reference to cross-check it.

Plain breadth-first search over boards kept as 16-character strings, remembering for each board
the board it was reached from and the swap that did it. No bit tricks: slow but obviously right,
and the state space (at most 12870 boards) is small enough that it answers every test well
inside the limit.
"""
import sys
from collections import deque

digits = [ch for ch in sys.stdin.read() if ch in "01"]
start, target = "".join(digits[:16]), "".join(digits[16:32])

# Adjacent cells as (index, index, the move's four digits), indexes 0-based row by row.
pairs = []
for r in range(4):
    for c in range(4):
        for r2, c2 in ((r, c + 1), (r + 1, c)):
            if r2 < 4 and c2 < 4:
                pairs.append((4 * r + c, 4 * r2 + c2, f"{r + 1}{c + 1}{r2 + 1}{c2 + 1}"))

came_from = {start: None}
queue = deque([start])
while target not in came_from:
    board = queue.popleft()
    for i, j, move in pairs:
        if board[i] == board[j]:
            continue  # swapping two equal pieces changes nothing
        nxt = board[:i] + board[j] + board[i + 1:j] + board[i] + board[j + 1:]
        if nxt not in came_from:
            came_from[nxt] = (board, move)
            queue.append(nxt)

moves = []
board = target
while came_from[board] is not None:
    board, move = came_from[board]
    moves.append(move)
moves.reverse()
print(len(moves))
print("".join(m + "\n" for m in moves), end="")
