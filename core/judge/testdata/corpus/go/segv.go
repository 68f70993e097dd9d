package main

import "fmt"

func main() {
	var p *int
	fmt.Println(*p)
}
