read -r a b
# 1 GiB in four 256 MiB strings: the first printf -v alone (its buffer and the
# variable's copy) passes the 256 MiB limit, after ~1.5 s of CPU (bash builds a string
# at ~10 ns a byte; larger widths make printf slower still).
printf -v s '%*s' $((1 << 28)) ''
all=("$s" "$s" "$s" "$s")
echo $((a + b + ${#all[3]} - (1 << 28)))
