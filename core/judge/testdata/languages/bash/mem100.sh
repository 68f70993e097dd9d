read -r a b
# A 50 MiB string of spaces, kept in a variable: printf -v builds it in a buffer of
# its own and copies it, so about 100 MiB are touched at the peak. (Bash takes ~10 ns
# of CPU per byte of a string it builds: 0.5 s here.)
printf -v s '%*s' $((50 << 20)) ''
echo $((a + b + ${#s} - (50 << 20)))
