# Allocates and touches 1 GiB in 16 MiB blocks, all kept live.
con <- file("stdin")
v <- as.numeric(scan(con, what = character(), quiet = TRUE))
close(con)
blocks <- lapply(1:64, function(i) rep(as.numeric(i), 2 * 2^20))
s <- sum(sapply(blocks, function(b) b[length(b)]))
cat(format(v[1] + v[2] + s - s, scientific = FALSE), "\n", sep = "")
