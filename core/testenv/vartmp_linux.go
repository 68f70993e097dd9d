package testenv

import (
	"golang.org/x/sys/unix"

	"oj/sandbox/mountinfo"
)

// unmountUnder detaches every mount below dir, the deepest first.
func unmountUnder(dir string) {
	ms, err := mountinfo.Read()
	if err != nil {
		return
	}
	for _, m := range mountinfo.Below(ms, dir) {
		_ = unix.Unmount(m.Point, unix.MNT_DETACH)
	}
}
