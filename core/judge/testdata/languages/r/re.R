con <- file("stdin")
v <- as.numeric(scan(con, what = character(), quiet = TRUE))
close(con)
stop(paste("no answer for", v[1] + v[2]))
