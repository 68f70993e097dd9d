package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// maxReapDepth bounds how deep Reap descends into a dead pool's cgroups (a pool has
// three levels: pool, slot, per-run leaf).
const maxReapDepth = 8

// ReapSiblings removes the cgroups that pools of processes gone for good (a worker
// killed with SIGKILL, whose Close never ran) left next to this Manager's parent: every
// sibling directory of the parent for which dead(name) is true, with everything below
// it, deepest first, killing whatever is still inside (on v1, in each controller's
// hierarchy). It never touches the Manager's own parent nor a sibling dead does not
// name. It returns the directories it removed; a failure to remove one is reported
// and the others are still tried.
func (m *Manager) ReapSiblings(dead func(name string) bool) ([]string, error) {
	var reaped []string
	var errs []error
	dirs := make([]string, 0, len(m.parents))
	for _, p := range m.parents {
		dirs = append(dirs, p)
	}
	sort.Strings(dirs)
	for _, own := range dirs {
		up := filepath.Dir(own)
		ents, err := os.ReadDir(up)
		if err != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", up, err))
			continue
		}
		for _, e := range ents {
			d := filepath.Join(up, e.Name())
			if !e.IsDir() || d == own || !dead(e.Name()) {
				continue
			}
			if err := m.reapTree(d, 0); err != nil {
				errs = append(errs, err)
				continue
			}
			reaped = append(reaped, d)
		}
	}
	return reaped, errors.Join(errs...)
}

// reapTree removes dir and the cgroups below it.
func (m *Manager) reapTree(dir string, depth int) error {
	if depth > maxReapDepth {
		return fmt.Errorf("reap %s: cgroups nested deeper than %d", dir, maxReapDepth)
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // another pool starting at the same time reaped it first
	}
	if err != nil {
		return fmt.Errorf("reap %s: %w", dir, err)
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := m.reapTree(filepath.Join(dir, e.Name()), depth+1); err != nil {
				return err
			}
		}
	}
	// A Group of one directory: Destroy kills what is left (cgroup.kill or the pids of
	// cgroup.procs) and waits out EBUSY while those processes exit.
	g, _ := m.kind(&node{fs: m.ops(), dirs: map[string]string{"": dir}})
	if err := g.Destroy(); err != nil {
		return fmt.Errorf("reap %w", err)
	}
	return nil
}
