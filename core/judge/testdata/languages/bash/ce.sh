read -r a b
if [ "$a" -gt 0 ]; then
	echo $((a + b))
