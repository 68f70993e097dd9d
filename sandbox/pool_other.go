//go:build !linux

package sandbox

import (
	"context"

	"oj/sandbox/cgroup"
)

// Pool is unavailable outside Linux; NewPool returns ErrUnsupported.
type Pool struct{}

// NewPool returns ErrUnsupported.
func NewPool(Config) (*Pool, error) { return nil, ErrUnsupported }

// Run returns ErrUnsupported.
func (*Pool) Run(context.Context, Spec) (Result, error) {
	return Result{Status: SE, ExitCode: -1, Error: ErrUnsupported.Error()}, ErrUnsupported
}

// Close does nothing.
func (*Pool) Close() error { return nil }

// Config returns the zero Config.
func (*Pool) Config() Config { return Config{} }

// CgroupVersion returns 0.
func (*Pool) CgroupVersion() int { return 0 }

// Dynmods returns ErrUnsupported.
func (*Pool) Dynmods() (cgroup.Dynmods, error) { return cgroup.Dynmods{}, ErrUnsupported }

// ReadWorkFile returns ErrUnsupported.
func ReadWorkFile(dir, name string, max int64) ([]byte, error) { return nil, ErrUnsupported }
