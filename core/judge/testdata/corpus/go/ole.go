package main

import (
	"bufio"
	"os"
	"strings"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	s := strings.Repeat("x", 65535) + "\n"
	for {
		w.WriteString(s)
	}
}
