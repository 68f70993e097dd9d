import sys
s = "x" * 65535 + "\n"
while True:
    sys.stdout.write(s)
