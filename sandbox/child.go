package sandbox

import "oj/sandbox/ns"

// MaybeRunChild is the hidden entry by which the binary re-executes itself as a
// sandbox slot's init. Call it first thing in main (and in TestMain of any test that
// runs sandboxes): when the process is a sandbox init it never returns; otherwise it
// returns immediately.
func MaybeRunChild() {
	if ns.IsInit() {
		ns.RunInit()
	}
}
