package main

import "fmt"

func main() {
	var a int64 = "not a number"
	fmt.Println(a + undeclared)
}
