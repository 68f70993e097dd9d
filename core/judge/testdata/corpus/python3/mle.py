a = bytearray(1 << 30)
for i in range(0, len(a), 4096):
    a[i] = 1
print(len(a))
