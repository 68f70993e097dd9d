# R's numbers are doubles (53 bits): a 64-bit sum is done exactly on two halves of
# nine decimal digits each.
halves <- function(s) {
  neg <- substr(s, 1, 1) == "-"
  d <- sub("^[-+]", "", s)
  n <- nchar(d)
  lo <- as.numeric(substr(d, max(1, n - 8), n))
  hi <- if (n > 9) as.numeric(substr(d, 1, n - 9)) else 0
  if (neg) c(-hi, -lo) else c(hi, lo)
}
exact_sum <- function(x, y) {
  h <- x[1] + y[1]
  l <- x[2] + y[2]
  h <- h + l %/% 1e9
  l <- l %% 1e9
  sign <- ""
  if (h < 0) {
    sign <- "-"
    if (l > 0) {
      h <- h + 1
      l <- 1e9 - l
    }
    h <- -h
  }
  if (h > 0) sprintf("%s%.0f%09.0f", sign, h, l) else sprintf("%s%.0f", sign, l)
}
con <- file("stdin")
tokens <- scan(con, what = character(), quiet = TRUE)
close(con)
cat(exact_sum(halves(tokens[1]), halves(exact_sum(halves(tokens[2]), c(0, 1)))), "\n", sep = "")
