local a, b = io.read("n", "n")
local x = a
while true do x = x * 6364136223846793005 + 1442695040888963407 end
