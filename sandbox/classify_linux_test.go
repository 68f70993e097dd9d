package sandbox

import (
	"syscall"
	"testing"
	"time"

	"oj/sandbox/cgroup"
)

func TestClassifyPrecedence(t *testing.T) {
	lim := Limits{CPU: time.Second, Wall: 3 * time.Second, Memory: 64 * MiB, Output: MiB}
	base := Result{Limits: lim, ExitCode: -1}
	with := func(f func(*Result)) Result { r := base; f(&r); return r }
	cases := []struct {
		name      string
		r         Result
		st        cgroup.Stats
		killedFor Status
		full      bool
		want      Status
	}{
		{"oom kill beats everything but SE", with(func(r *Result) { r.Signal = 9; r.CPU = 2 * time.Second }), cgroup.Stats{OOMKills: 1}, "", true, MLE},
		{"TLE beats a full output file", with(func(r *Result) { r.Signal = 9 }), cgroup.Stats{}, TLE, true, TLE},
		{"full output file with a non-zero exit is OLE", with(func(r *Result) { r.ExitCode = 1 }), cgroup.Stats{}, "", true, OLE},
		{"SIGXFSZ is OLE", with(func(r *Result) { r.Signal = int(syscall.SIGXFSZ) }), cgroup.Stats{}, "", false, OLE},
		{"captured stream over the limit is OLE", with(func(r *Result) { r.ExitCode = 0; r.StdoutBytes = MiB + 1 }), cgroup.Stats{}, "", false, OLE},
		{"captured stream at the limit is OK", with(func(r *Result) { r.ExitCode = 0; r.StdoutBytes = MiB }), cgroup.Stats{}, "", false, OK},
		{"wall over the limit without the watcher's kill is not TLE", with(func(r *Result) { r.ExitCode = 0; r.Wall = 5 * time.Second }), cgroup.Stats{}, "", false, OK},
		{"non-zero exit is RE", with(func(r *Result) { r.ExitCode = 2 }), cgroup.Stats{}, "", false, RE},
		{"SIGSYS is RE", with(func(r *Result) { r.Signal = int(syscall.SIGSYS) }), cgroup.Stats{}, "", false, RE},
		{"canceled is SE", with(func(r *Result) { r.ExitCode = 0 }), cgroup.Stats{OOMKills: 1}, SE, true, SE},
		{"stalled past max_stall is SE", with(func(r *Result) { r.Signal = 9 }), cgroup.Stats{OOMKills: 1}, stalledSE, true, SE},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, msg := classify(c.r, c.st, c.killedFor, "killed", c.full); got != c.want {
				t.Fatalf("%s (%s), want %s", got, msg, c.want)
			}
		})
	}
}
