# Brute force for cross-checking: iterative deepening over all swaps of differing adjacent cells,
# on boards kept as strings. Independent of the reference's bit-packed BFS; fine for small answers.
import sys

digits = [ch for ch in sys.stdin.read() if ch in "01"]
start, target = "".join(digits[:16]), "".join(digits[16:32])
swaps = [(c, c + 1) for c in range(16) if c % 4 < 3] + [(c, c + 4) for c in range(12)]


def search(board, depth, path):
    if board == target:
        return path
    if depth == 0:
        return None
    # A lower bound: every misplaced 1 needs at least one move.
    misplaced = sum(1 for a, b in zip(board, target) if a == "1" and b == "0")
    if misplaced > depth:
        return None
    for x, y in swaps:
        if board[x] != board[y]:
            b = list(board)
            b[x], b[y] = b[y], b[x]
            found = search("".join(b), depth - 1, path + [(x, y)])
            if found is not None:
                return found
    return None


for depth in range(0, 40):
    path = search(start, depth, [])
    if path is not None:
        print(len(path))
        for x, y in path:
            print(f"{x // 4 + 1}{x % 4 + 1}{y // 4 + 1}{y % 4 + 1}")
        break
