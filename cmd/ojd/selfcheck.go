package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"oj/core/judge"
	"oj/sandbox"
)

// selfCheck proves, before the worker claims anything, that this host can judge: one
// trivial run through the real pool (namespaces, the cgroup under sandbox.cgroup_parent
// with its delegation, the seccomp filter, the per-run mounts) and every configured
// language's toolchain. A misconfigured host then stops at start with the key to change,
// instead of ending submission after submission as SE. (judge.New already refused work
// dirs the sandbox would hide.)
func selfCheck(ctx context.Context, log *slog.Logger, cfg sandbox.Config, pool *sandbox.Pool, j *judge.Judge) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := pool.Run(ctx, sandbox.Spec{Args: []string{"/bin/true"}})
	if err == nil && res.Status != sandbox.OK {
		err = fmt.Errorf("status %s: %s", res.Status, res.Error)
	}
	if err != nil {
		return fmt.Errorf("worker self-check: a trivial sandboxed run (/bin/true) failed on cgroup v%d under sandbox.cgroup_parent %q: %w "+
			"(under systemd the worker unit needs Delegate=yes; see runbooks/sandbox-errors.md)",
			pool.CgroupVersion(), cfg.CgroupParent, err)
	}
	if missing := j.Unavailable(); len(missing) > 0 {
		list := make([]string, len(missing))
		for i, m := range missing {
			list[i] = m.String()
		}
		return fmt.Errorf("worker self-check: judge.languages_file: configured languages this host cannot run: %s "+
			"(install their toolchains, or point judge.languages_file at a file without them)", strings.Join(list, "; "))
	}
	log.Info("worker self-check passed", "cgroup_version", pool.CgroupVersion(), "languages", j.Languages().IDs(),
		"sandbox_run_ms", res.Wall.Milliseconds())
	return nil
}
