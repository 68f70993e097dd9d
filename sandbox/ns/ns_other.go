//go:build !linux

package ns

// IsInit reports whether this process was started as a sandbox init; never on this OS.
func IsInit() bool { return false }

// RunInit is never called outside Linux.
func RunInit() {}
