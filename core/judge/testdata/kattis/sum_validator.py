# A Kattis output validator in Python: accepts the sum of the input's two numbers,
# case flags from the arguments ("bonus" writes score.txt with the sum).
import sys

inp, ans, fb = sys.argv[1], sys.argv[2], sys.argv[3]
a, b = map(int, open(inp).read().split())
try:
    got = int(sys.stdin.read().split()[0])
except (IndexError, ValueError):
    open(fb + "judgemessage.txt", "w").write("no number\n")
    sys.exit(43)
if got != a + b:
    open(fb + "judgemessage.txt", "w").write("expected %d, found %d\n" % (a + b, got))
    open(fb + "teammessage.txt", "w").write("not the sum\n")
    sys.exit(43)
if "bonus" in sys.argv[4:]:
    open(fb + "score.txt", "w").write("%d\n" % (a + b))
sys.exit(42)
