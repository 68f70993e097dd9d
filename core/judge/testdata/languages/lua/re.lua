local a, b = io.read("n", "n")
error("no answer for " .. a .. " " .. b)
