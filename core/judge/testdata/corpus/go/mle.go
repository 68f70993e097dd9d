package main

import "fmt"

func main() {
	b := make([]byte, 1<<30)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	fmt.Println(len(b))
}
