a, b = map(int, input().split())
print("%.9f" % (a / b))
