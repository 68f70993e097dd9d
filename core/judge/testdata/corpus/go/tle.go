package main

func main() {
	x := 0
	for {
		x++
	}
}
