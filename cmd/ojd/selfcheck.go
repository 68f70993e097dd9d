package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"oj/core/judge"
	"oj/sandbox"
)

// selfCheck proves, before the worker claims anything, that this host can judge: one
// small run through the real pool (namespaces, the cgroup under sandbox.cgroup_parent
// with its delegation, the seccomp filter, the per-run mounts, a work dir's write-back)
// and every configured language's toolchain. A misconfigured sandbox then stops the
// worker at start with the key to change, instead of ending submission after submission
// as SE; a language whose toolchain is missing is left out of what the worker announces
// and claims (workerLanguages).
// (judge.New already refused work dirs the sandbox would hide.)
func selfCheck(ctx context.Context, log *slog.Logger, cfg sandbox.Config, workDir string, pool *sandbox.Pool, j *judge.Judge) error {
	vctx, vcancel := context.WithTimeout(ctx, 2*time.Minute)
	start := time.Now()
	// Each language's version command, in the sandbox: what fails there is left out like
	// a missing toolchain; the versions found name the languages the worker announces.
	j.DetectVersions(vctx)
	vcancel()
	if err := ctx.Err(); err != nil {
		return err
	}
	log.Info("worker self-check: languages detected", "ms", time.Since(start).Milliseconds(), "names", j.Names())
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := writeProbe(ctx, pool, workDir)
	if err != nil {
		return fmt.Errorf("worker self-check: a trivial sandboxed run failed on cgroup v%d under sandbox.cgroup_parent %q: %w "+
			"(under systemd the worker unit needs Delegate=yes and no RestrictSUIDSGID; see runbooks/sandbox-errors.md)",
			pool.CgroupVersion(), cfg.CgroupParent, err)
	}
	if missing := j.Unavailable(); len(missing) > 0 {
		list := make([]string, len(missing))
		for i, m := range missing {
			list[i] = m.String()
		}
		// Not a reason to stop: the worker announces the languages that passed and claims
		// only those; submissions in the others wait for a worker that runs them.
		log.Warn("worker self-check: this host cannot run some configured languages; it judges the others "+
			"(install their toolchains to judge them here)", "missing", strings.Join(list, "; "))
	}
	logDynmods(log, cfg, pool)
	d, _ := pool.Dynmods()
	log.Info("worker self-check passed", "cgroup_version", pool.CgroupVersion(), "cgroup_favordynmods", d.On(),
		"languages", j.Languages().IDs(), "sandbox_run_ms", res.Wall.Milliseconds())
	return nil
}

// recheck is the self-check a quarantined worker re-runs (core/worker quarantine.go):
// the same trivial sandboxed run that writes in the work dir, and the toolchain of every
// language the worker claims, still reachable by the sandbox's uid. What it finds is an
// error naming the part that failed.
func recheck(ctx context.Context, workDir string, pool *sandbox.Pool, j *judge.Judge, languages []string) error {
	if _, err := writeProbe(ctx, pool, workDir); err != nil {
		return fmt.Errorf("worker self-check: a trivial sandboxed run failed: %w", err)
	}
	var missing []string
	for _, m := range j.Languages().CheckToolchains() {
		if slices.Contains(languages, m.Language) {
			missing = append(missing, m.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("worker self-check: toolchains gone: %s", strings.Join(missing, "; "))
	}
	return nil
}

// workerLanguages is what the worker judges and announces: the languages of
// worker.languages (every configured one when empty) whose self-check passed. A
// worker.languages entry that is not a configured language, or a worker left with no
// language at all, stops it with the key to change.
func workerLanguages(want []string, j *judge.Judge) ([]string, error) {
	configured := j.Languages().IDs()
	if len(want) == 0 {
		want = configured
	}
	var out, lacking []string
	for _, id := range want {
		if _, ok := j.Languages().Get(id); !ok {
			return nil, fmt.Errorf("worker.languages: %q is not a language of judge.languages_file (configured: %s)",
				id, strings.Join(configured, ", "))
		}
		if j.Supports(id) {
			out = append(out, id)
		} else {
			lacking = append(lacking, id)
		}
	}
	if len(out) == 0 {
		var why []string
		for _, m := range j.Unavailable() {
			if slices.Contains(lacking, m.Language) {
				why = append(why, m.String())
			}
		}
		return nil, fmt.Errorf("worker self-check: judge.languages_file: no language this worker would judge passed (%s): "+
			"it would judge nothing; install their toolchains, or change judge.languages_file or worker.languages",
			strings.Join(why, "; "))
	}
	return out, nil
}

// logDynmods says whether a run joins its cgroup cheaply on this host (see
// sandbox.favor_dynmods): not a reason to stop, but judging is slower without it.
func logDynmods(log *slog.Logger, cfg sandbox.Config, pool *sandbox.Pool) {
	d, err := pool.Dynmods()
	const cost = "each sandboxed run may wait about 10 ms for an RCU grace period when it joins its cgroup"
	switch {
	case !cfg.FavorDynmods:
		log.Info("sandbox.favor_dynmods is false: the host's cgroup2 favordynmods option is left as it is; without it " + cost)
	case err != nil:
		log.Warn("could not set the cgroup2 option favordynmods; "+cost, "err", err)
	case d.Mount == "":
		log.Warn("no cgroup2 mount to set favordynmods on; " + cost)
	case d.Enabled:
		log.Info("set favordynmods on the host's cgroup2 mount: runs join their cgroups without waiting for an RCU grace period "+
			"(host-wide; sandbox.favor_dynmods: false leaves the host alone)", "mount", d.Mount)
	}
}

// writeProbe runs what every compile does, small: a program writes a file in its work
// dir, and the write comes back to the host (the overlay, the copy-back with openat2).
func writeProbe(ctx context.Context, pool *sandbox.Pool, workDir string) (sandbox.Result, error) {
	dir, err := os.MkdirTemp(workDir, "self-check-")
	if err != nil {
		return sandbox.Result{}, fmt.Errorf("judge.work_dir: %w", err)
	}
	defer os.RemoveAll(dir)
	// The run's unprivileged uid writes here, as in a task's box; the work dir above is
	// private to the worker.
	if err := os.Chmod(dir, 0o777); err != nil {
		return sandbox.Result{}, fmt.Errorf("judge.work_dir: %w", err)
	}
	res, err := pool.Run(ctx, sandbox.Spec{Args: []string{"/bin/sh", "-c", "echo ok > probe"}, Dir: dir})
	if err == nil && res.Status != sandbox.OK {
		err = fmt.Errorf("status %s: %s", res.Status, res.Error)
	}
	if err != nil {
		return res, fmt.Errorf("/bin/sh writing in its work dir: %w", err)
	}
	if b, err := sandbox.ReadWorkFile(dir, "probe", 16); err != nil || string(b) != "ok\n" {
		return res, fmt.Errorf("what the run wrote in its work dir did not come back (%q, %v)", b, err)
	}
	return res, nil
}
