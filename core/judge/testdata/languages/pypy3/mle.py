a, b = map(int, input().split())
# 1 GiB of integers in lists (8 bytes each in PyPy's integer lists): the GC's heap, not
# one buffer.
rows = [[k for k in range(1 << 16)] for _ in range((1 << 30) // (8 << 16) + 1)]
print(a + b + len(rows[-1]) - (1 << 16))
