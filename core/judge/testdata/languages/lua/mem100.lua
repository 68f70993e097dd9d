local a, b = io.read("n", "n")
-- 100 strings of 1 MiB each, kept in a table: string.rep of a 1 KiB chunk is a
-- thousand copies, not a million (a one-byte chunk costs ~10 ns a byte).
local chunk = string.rep("x", 1024)
local t = {}
for i = 1, 100 do t[i] = string.rep(chunk, 1024) end
print(math.tointeger(a + b + #t[100] - (1 << 20)))
