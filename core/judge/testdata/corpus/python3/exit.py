import sys
print(3)
sys.exit(3)
