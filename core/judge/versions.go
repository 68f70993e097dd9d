package judge

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"oj/core/judge/lang"
)

// versionOutputBytes bounds what a version command may say that the judge reads.
const versionOutputBytes = 4 << 10

// DetectVersions runs every available language's version command in the sandbox, as a
// program of the language would run: with its read_only_paths, its processes and the
// compile limits. A command that succeeds gives the version its name shows
// (DisplayName); one that fails makes the language unavailable on this worker, with
// what it said as the reason: a toolchain present on the host but broken in the sandbox
// (a library outside its view, a runtime that needs more processes) is found here, at
// start, rather than by every submission. It returns the languages it made unavailable.
func (j *Judge) DetectVersions(ctx context.Context) []lang.Missing {
	type found struct {
		id      string
		version string
		miss    *lang.Missing
	}
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		all []found
	)
	for _, l := range j.langs.All() {
		if len(l.Version) == 0 || !j.Supports(l.ID) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := j.detectVersion(ctx, l)
			f := found{id: l.ID, version: v}
			if err != nil {
				f.miss = &lang.Missing{Language: l.ID, Path: l.Version[0], Reason: "version command: " + err.Error()}
			}
			mu.Lock()
			all = append(all, f)
			mu.Unlock()
		}()
	}
	wg.Wait()
	var gone []lang.Missing
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, f := range all {
		if f.miss != nil {
			j.missing[f.id] = append(j.missing[f.id], *f.miss)
			gone = append(gone, *f.miss)
			continue
		}
		j.versions[f.id] = f.version
	}
	return gone
}

// detectVersion runs l's version command once and picks the version out of its output.
func (j *Judge) detectVersion(ctx context.Context, l *lang.Language) (string, error) {
	dir, err := os.MkdirTemp(j.tasksDir(), "version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	log, err := newOutputSink(versionOutputBytes, versionOutputBytes)
	if err != nil {
		return "", err
	}
	defer log.wait()
	lim := j.cfg.Compile
	vars := lang.Vars{MemoryMB: lim.MemoryMB, StackMB: lim.MemoryMB, WorkDir: j.runner.WorkDir()}
	res, err := j.runner.Run(ctx, Spec{
		Argv:          lang.Expand(l.Version, vars),
		Env:           mergeEnv(baseEnv, lang.Expand(l.RunEnv, vars)),
		Dir:           dir,
		ReadOnlyPaths: l.ReadOnlyPaths,
		Stdout:        log.w,
		Stderr:        log.w,
		StdoutDrained: true,
		StderrDrained: true,
		CPU:           lim.CPU,
		Wall:          lim.Wall,
		MemoryBytes:   int64(lim.MemoryMB) << 20,
		OutputBytes:   versionOutputBytes,
		StackBytes:    int64(lim.MemoryMB) << 20,
		Processes:     max(lim.Processes, l.Processes, l.CompileProcesses),
		OnStart:       func() { log.w.Close() },
	})
	log.wait()
	if err != nil {
		return "", err
	}
	out := strings.ToValidUTF8(string(log.buf), "?")
	if res.Status != StatusOK || res.ExitCode != 0 || res.Signal != 0 {
		msg := strings.TrimSpace(out)
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return "", fmt.Errorf("%s: status %s, exit code %d, signal %d: %q", strings.Join(l.Version, " "),
			res.Status, res.ExitCode, res.Signal, msg)
	}
	v := l.ParseVersion(out)
	if v == "" {
		return "", fmt.Errorf("%s said no version (version_regexp %q): %q", strings.Join(l.Version, " "), l.VersionRegexp,
			strings.TrimSpace(out))
	}
	return v, nil
}

// Names are the display names of the languages this worker judges, with the versions
// its self-check detected (DetectVersions; without it, the names without versions).
func (j *Judge) Names() map[string]string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string]string{}
	for _, l := range j.langs.All() {
		if len(j.missing[l.ID]) == 0 {
			out[l.ID] = l.DisplayName(j.versions[l.ID])
		}
	}
	return out
}

// missingOf is why this worker cannot run language id (nil: it can).
func (j *Judge) missingOf(id string) []lang.Missing {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.missing[id]
}
