package main

import "fmt"

func main() {
	var a, b uint64
	fmt.Scan(&a, &b)
	x := a
	for {
		x = x*6364136223846793005 + 1442695040888963407
	}
}
