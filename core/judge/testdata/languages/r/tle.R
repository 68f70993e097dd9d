con <- file("stdin")
v <- as.numeric(scan(con, what = character(), quiet = TRUE))
close(con)
x <- 0
while (x != -1) {
  x <- (x * 31 + 7) %% 1000003
}
cat(format(v[1] + v[2] + x, scientific = FALSE), "\n", sep = "")
