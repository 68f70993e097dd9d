local a, b = io.read("n", "n")
local s = string.rep("x", 100 << 20)
print(math.tointeger(a + b + #s - (100 << 20)))
