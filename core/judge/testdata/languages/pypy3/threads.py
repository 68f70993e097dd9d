# The deep-recursion habit of Python contestants: a thread with a large stack runs the
# solution, which recurses 100000 deep.
import sys
import threading


def main():
    a, b = map(int, sys.stdin.readline().split())

    def depth(n):
        return 0 if n == 0 else depth(n - 1) + 1

    print(a + b + depth(100000) - 100000)


sys.setrecursionlimit(1 << 20)
threading.stack_size(1 << 26)
t = threading.Thread(target=main)
t.start()
t.join()
