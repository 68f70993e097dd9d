package ns

/*
#cgo CFLAGS: -O2 -Wall -Wno-unused-result
#include "init.h"
*/
import "C"

import (
	"os"
	"runtime"
)

// InitArg0 is argv[0] of a re-executed sandbox init; it is how the binary recognises
// that it must become a slot's init instead of running its normal main.
const InitArg0 = "oj-sandbox-init"

// IsInit reports whether this process was started as a sandbox init.
func IsInit() bool { return len(os.Args) > 0 && os.Args[0] == InitArg0 }

// RunInit turns the process into the slot's init and never returns. It must be called
// first thing in main (or TestMain), before the program does anything else.
func RunInit() {
	runtime.LockOSThread()
	C.oj_init_main()
	os.Exit(0)
}
