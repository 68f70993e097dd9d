local a, b = io.read("n", "n")
local s = string.rep("x", 1 << 30)
print(math.tointeger(a + b + #s - (1 << 30)))
