a, b = map(int, input().split())
x = a
while True:
    x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
