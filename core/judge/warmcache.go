package judge

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"oj/core/judge/lang"
)

// warmCaches holds the worker's warmed compiler build caches (Go's GOCACHE), one per
// language with a compile_cache. Each is built once at start by compiling the
// language's warm_source outside the sandbox — the worker's own fixed program, not user
// code — and then replicated into every compile's work dir: fresh directories the
// sandboxed compiler may add entries to, holding hard links to the template's files,
// which stay owned by the worker and read-only to the sandbox's uid, so no submission
// can poison the cache of the next.
type warmCaches struct {
	root  string
	mu    sync.Mutex
	ready map[string]string
}

func newWarmCaches(root string) *warmCaches {
	return &warmCaches{root: root, ready: map[string]string{}}
}

func (w *warmCaches) template(l *lang.Language) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ready[l.ID]
}

func (w *warmCaches) build(ctx context.Context, l *lang.Language) error {
	cc := l.CompileCache
	base := filepath.Join(w.root, l.ID)
	if err := os.RemoveAll(base); err != nil {
		return err
	}
	box := filepath.Join(base, "box")
	if err := os.MkdirAll(box, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(box, l.SourceFile), []byte(cc.WarmSource), 0o644); err != nil {
		return err
	}
	vars := lang.Vars{Src: l.SourceFile, WorkDir: box}
	argv := lang.Expand(dropPlaceholder(l.Compile, "{pch_dir}"), vars)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if out, err := runOnHost(ctx, box, mergeEnv(baseEnv, lang.Expand(l.CompileEnv, vars)), argv); err != nil {
		return fmt.Errorf("%v: %w: %s", argv, err, out)
	}
	tmpl := filepath.Join(box, cc.Dir)
	err := filepath.WalkDir(tmpl, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, 0o644)
	})
	if err != nil {
		return err
	}
	for d := box; d != filepath.Dir(w.root); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	w.mu.Lock()
	w.ready[l.ID] = tmpl
	w.mu.Unlock()
	return nil
}

// replicate recreates tmpl under dst: new directories (writable by the sandbox's uid)
// and hard links to the template's files (a copy across filesystems).
func replicate(tmpl, dst string) error {
	return filepath.WalkDir(tmpl, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(tmpl, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if err := os.MkdirAll(target, 0o777); err != nil {
				return err
			}
			return os.Chmod(target, 0o777)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return linkOrCopy(p, target)
	})
}
