"""Checks test/Integration/gpu-lane-vectors.mlir's output: every lane's
values recomputed here, the tickets' sums those of 0..299, the totals."""
import sys

N = 300
values = [int(line) for line in sys.stdin.read().split()]
if len(values) != 1204:
    sys.exit(f"expected 1204 values, got {len(values)}")


def collatz(x):
    steps = 0
    while x != 1:
        x = 3 * x + 1 if x % 2 else x // 2
        steps += 1
    return steps


errors = []
for g in range(N):
    expected = [
        collatz(g + 1),
        sum(k * k for k in range(g % 7)) if g % 3 == 0 else 2 * g,
        g * 10 + g % 4,
        1000 // g if g > 0 else -1,
    ]
    got = values[4 * g:4 * g + 4]
    if got != expected:
        errors.append(f"lane {g}: got {got}, expected {expected}")
# The tickets' sum and sum of squares: those of 0..N-1 when every lane drew
# a distinct one (the ticket counter ends at N).
if values[1200] != sum(range(N)) or values[1201] != sum(t * t for t in range(N)):
    errors.append(f"tickets' sums {values[1200]}, {values[1201]}: not those of 0..{N - 1}")
if values[1202] != N:
    errors.append(f"ticket counter {values[1202]}, expected {N}")
if values[1203] != N * (N - 1) // 2:
    errors.append(f"sum {values[1203]}, expected {N * (N - 1) // 2}")
for error in errors[:10]:
    print(error)
sys.exit(1 if errors else 0)
