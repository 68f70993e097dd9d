package judge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"oj/core/judge/lang"
)

// pchSet holds the worker's precompiled headers, one directory per language, passed to
// the compiler with -I (gcc looks for <header>.gch in each include directory before the
// header itself and uses it when the flags match).
//
// They are built outside the sandbox, by the worker, once at start: the input is the
// worker's own fixed header, not user code. Until one is ready compiles go without it.
type pchSet struct {
	root  string
	mu    sync.Mutex
	ready map[string]string
}

func newPCHSet(root string) *pchSet { return &pchSet{root: root, ready: map[string]string{}} }

// dir returns the language's header directory, or "" if none is ready.
func (p *pchSet) dir(l *lang.Language) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ready[l.ID]
}

func (p *pchSet) build(ctx context.Context, l *lang.Language) error {
	h := l.PrecompiledHeader
	dir := filepath.Join(p.root, l.ID)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	gch := filepath.Join(dir, filepath.FromSlash(h.Header)+".gch")
	if err := os.MkdirAll(filepath.Dir(gch), 0o755); err != nil {
		return err
	}
	src := filepath.Join(p.root, l.ID+"-pch.h")
	if err := os.WriteFile(src, []byte(fmt.Sprintf("#include <%s>\n", h.Header)), 0o644); err != nil {
		return err
	}
	argv := lang.Expand(h.Compile, lang.Vars{Src: src, Out: gch})
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if out, err := runOnHost(ctx, "", nil, argv); err != nil {
		return fmt.Errorf("%v: %w: %s", argv, err, out)
	}
	for d := dir; d != p.root; d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	os.Chmod(p.root, 0o755)
	if err := os.Chmod(gch, 0o644); err != nil {
		return err
	}
	p.mu.Lock()
	p.ready[l.ID] = dir
	p.mu.Unlock()
	return nil
}
