a, b = map(int, input().split())
# ~100 MiB of integers in lists (8 bytes each in PyPy's integer lists), kept live.
rows = [[k for k in range(1 << 16)] for _ in range((100 << 20) // (8 << 16))]
print(a + b + len(rows[-1]) - (1 << 16))
