//go:build !linux

package seccomp

import "errors"

// Build is unsupported outside Linux.
func Build() ([]byte, error) { return nil, errors.New("seccomp: unsupported on this OS") }
