a, b = map(int, input().split())
block = bytearray(b"\x01") * (100 << 20)
print(a + b + block[-1] - 1)
