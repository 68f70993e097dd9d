a, b = map(int, input().split())
block = bytearray(b"\x01") * (1 << 30)
print(a + b + block[-1] - 1)
