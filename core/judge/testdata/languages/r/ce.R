con <- file("stdin")
v <- as.numeric(scan(con, what = character(), quiet = TRUE))
close(con)
cat(format(v[1] + v[2], scientific = FALSE), "\n", sep = ""
