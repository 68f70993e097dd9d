package cgroup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// PerRunLeaf reports whether run groups give each run a fresh leaf cgroup (cgroup v2
// where memory.peak cannot be restarted) rather than resetting one cgroup in place.
func (m *Manager) PerRunLeaf() bool { return m.perRun }

// Mode describes how runs are measured, for diagnostics.
func (m *Manager) Mode() string {
	switch {
	case !m.v2:
		return "cgroup v1, one cgroup per slot reset between runs"
	case m.perRun:
		return "cgroup v2, a new leaf cgroup per run (" + m.perRunWhy + ")"
	}
	return "cgroup v2, one cgroup per slot reset between runs (memory.peak is resettable)"
}

// probe decides, on v2, between resetting a slot's cgroup and a leaf per run.
func (m *Manager) probe() {
	if !m.v2 {
		return
	}
	ok, why := peakResettable(m.ops(), m.parents[""])
	m.perRun, m.perRunWhy = !ok, why
}

// peakResettable reports whether dir's memory.peak restarts when written (Linux 6.12:
// the write handler came with the reset). It writes through a descriptor of its own,
// which restarts the peak for that descriptor only, so nobody else's reading changes,
// and checks that the value read back through it is the current usage rather than a
// peak from before. Before 6.12 the file has no write handler and the open for writing
// fails (EACCES); before 5.19 there is no memory.peak at all.
func peakResettable(fsys fsys, dir string) (bool, string) {
	name := filepath.Join(dir, "memory.peak")
	f, err := fsys.OpenFile(name, os.O_RDWR)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, "no memory.peak: kernel before 5.19 or no memory controller"
		}
		return false, "memory.peak is read-only: kernel before 6.12"
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("reset"), 0); err != nil {
		return false, "memory.peak refused a reset: " + err.Error()
	}
	peak, err := readIntAt(f)
	if err != nil {
		return false, "memory.peak after a reset: " + err.Error()
	}
	cur, err := readAll(fsys, filepath.Join(dir, "memory.current"))
	if err != nil {
		return false, "memory.current: " + err.Error()
	}
	c, err := parseInt(cur)
	if err != nil {
		return false, "memory.current: " + err.Error()
	}
	if peak > c+LeftCharge {
		return false, fmt.Sprintf("memory.peak reads %d after a reset with %d in use", peak, c)
	}
	return true, ""
}

func readIntAt(f io.ReaderAt) (int64, error) {
	var buf [64]byte
	n, err := f.ReadAt(buf[:], 0)
	if n == 0 && err != nil && err != io.EOF {
		return 0, err
	}
	return parseInt(string(buf[:n]))
}

// enableAvailable turns on, for dir's children, those of memory and pids that dir
// has. One that dir lacks is not an error here: applying a limit that needs it is.
func enableAvailable(fsys fsys, dir string) error {
	have, err := readAll(fsys, filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return fmt.Errorf("cgroup %s: %w", dir, err)
	}
	on, _ := readAll(fsys, filepath.Join(dir, "cgroup.subtree_control"))
	var add []string
	for _, c := range v2Controllers {
		if slices.Contains(strings.Fields(have), c) && !slices.Contains(strings.Fields(on), c) {
			add = append(add, "+"+c)
		}
	}
	if len(add) == 0 {
		return nil
	}
	if err := writeOnce(fsys, filepath.Join(dir, "cgroup.subtree_control"), strings.Join(add, " ")); err != nil {
		return fmt.Errorf("enable %v for the runs of %s: %w", add, dir, err)
	}
	return nil
}
