package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"oj/sandbox/ns"
)

// The fixed bounds of a write-back (the byte bound is the run's: see writeBack).
const (
	// maxWriteBackDepth is how deep the directories copied back may nest below Dir.
	maxWriteBackDepth = 64
	// maxWriteBackEntries is how many names (files, each hard link, directories,
	// symlinks, removals) one write-back may apply: thousands of times what a compile
	// leaves (a binary, class files, a few build-cache entries), and a bound on the
	// walk, the memory it takes and the host directory's growth.
	maxWriteBackEntries = 10_000
)

// ErrWriteBackLimit is what Run's error wraps (the run's status is then SE and Dir is
// as it was before the run) when what a run wrote in its work dir is over the
// write-back's bounds: more than 10,000 entries, directories nested deeper than 64, or
// more bytes than the run could have stored there (see Spec.Dir).
var ErrWriteBackLimit = errors.New("over the write-back limits")

// writeBack applies what a run wrote over its work dir (the upper tmpfs's data
// directory) to dir: regular files (permission bits only, never set-id), hard links
// (as links: a file with many names is copied once), directories, symlinks (as
// symlinks: nothing is followed on either side), and removals (overlayfs whiteouts;
// a removed directory goes with what it held). The copies are made by this process,
// so they are charged to the caller's cgroup, not to the slot's; the run's own pages
// go when the upper tmpfs is closed.
//
// maxBytes bounds the bytes copied: file sizes, each inode once, plus symlink targets.
// The caller passes what the run could have stored — the smaller of the work dir's
// tmpfs size and the run's memory limit (the tmpfs is charged to the run) — so honest
// writes always fit, and what is over it is sparse files or names repeated to blow up
// on the host.
//
// It is all or nothing: the whole tree is walked and checked against the bounds before
// anything is written; the files are then copied into a staging directory inside dir
// and renamed into place, what they replace is moved aside, and a failure at any step
// puts everything back, so dir is either as it was or fully updated.
func writeBack(upper *os.File, dir string, maxBytes int64) error {
	src, err := openDirBeneath(int(upper.Fd()), ns.UpperData)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	p := &wbPlan{maxBytes: maxBytes, inodes: map[uint64]*wbNode{}}
	if err := p.walk(src, &p.root, 1); err != nil {
		return err
	}
	if len(p.root.kids) == 0 {
		return nil
	}
	dst, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(dst)
	return apply(src, dst, dir, &p.root)
}

// openDirBeneath opens the directory name under the directory fd without following a
// symlink or leaving the filesystem.
func openDirBeneath(fd int, name string) (int, error) {
	d, err := unix.Openat2(fd, name, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV,
	})
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", name, err)
	}
	return d, nil
}

type wbKind uint8

const (
	wbDir wbKind = iota
	wbFile
	wbSymlink
	wbRemove // an overlayfs whiteout: the run removed the name
)

// wbNode is one name of the run's writes, and what applying it did (for a rollback).
type wbNode struct {
	name   string
	kind   wbKind
	mode   uint32 // permission bits
	opaque bool   // a directory that replaces whatever was at its name
	size   int64
	first  *wbNode // a file: the first name met of the same inode, if this is another
	target string  // a symlink's target
	kids   []*wbNode

	staged  string // its name in the staging directory (a file or symlink)
	aside   string // the name in the staging directory of what dir held at name
	placed  bool   // the staged file or symlink is at name, or the directory was made
	entered bool   // a directory whose kids were (maybe partly) applied
	oldMode uint32 // the mode of the directory that was kept at name, if changed
	chmoded bool
}

// wbPlan is the walk of a run's writes: the tree and its totals.
type wbPlan struct {
	root     wbNode
	entries  int
	bytes    int64
	maxBytes int64
	inodes   map[uint64]*wbNode // files with more than one name, by inode
	path     []string           // where the walk is, for messages
}

// walk adds what the directory fd holds to dir's kids (in name order) and descends,
// depth being that of the entries of fd.
func (p *wbPlan) walk(fd int, dir *wbNode, depth int) error {
	names, err := p.readNames(fd)
	if err != nil {
		return err
	}
	for _, name := range names {
		p.path = append(p.path, name)
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return p.fail("stat", err)
		}
		n := &wbNode{name: name, mode: st.Mode & 0o777, size: st.Size}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if depth > maxWriteBackDepth {
				return p.limit(fmt.Sprintf("directories nested deeper than %d", maxWriteBackDepth))
			}
			n.kind, n.size = wbDir, 0
			if err := p.descend(fd, n, depth); err != nil {
				return err
			}
		case unix.S_IFREG:
			n.kind = wbFile
			if st.Nlink > 1 {
				n.first = p.inodes[st.Ino]
				if n.first == nil {
					p.inodes[st.Ino] = n
				}
			}
			if n.first == nil {
				p.bytes += n.size
			}
		case unix.S_IFLNK:
			buf := make([]byte, unix.PathMax)
			k, err := unix.Readlinkat(fd, name, buf)
			if err != nil {
				return p.fail("readlink", err)
			}
			n.kind, n.target = wbSymlink, string(buf[:k])
			p.bytes += int64(k)
		case unix.S_IFCHR:
			if st.Rdev != 0 {
				n = nil
				break
			}
			n.kind = wbRemove
		default: // FIFOs and sockets are not copied
			n = nil
		}
		if p.bytes > p.maxBytes {
			return p.limit(fmt.Sprintf("more than %d bytes", p.maxBytes))
		}
		if n != nil {
			dir.kids = append(dir.kids, n)
		}
		p.path = p.path[:len(p.path)-1]
	}
	return nil
}

func (p *wbPlan) descend(fd int, n *wbNode, depth int) error {
	sub, err := unix.Openat(fd, n.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return p.fail("open", err)
	}
	defer unix.Close(sub)
	n.opaque = opaque(sub)
	return p.walk(sub, n, depth+1)
}

// opaque says whether overlayfs marked the directory fd as replacing the lower one at
// its name (the run removed that one and made a new directory there).
func opaque(fd int) bool {
	var v [1]byte
	n, err := unix.Fgetxattr(fd, "trusted.overlay.opaque", v[:])
	return err == nil && n == 1 && v[0] == 'y'
}

// readNames lists the directory fd in name order, counting its names against the
// bound on entries (the listing stops as soon as it is over).
func (p *wbPlan) readNames(fd int) ([]string, error) {
	d, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, p.fail("open", err)
	}
	f := os.NewFile(uintptr(d), ".")
	defer f.Close()
	var names []string
	for {
		batch, err := f.Readdirnames(256)
		names = append(names, batch...)
		p.entries += len(batch)
		if p.entries > maxWriteBackEntries {
			return nil, p.limit(fmt.Sprintf("more than %d entries", maxWriteBackEntries))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, p.fail("list", err)
		}
	}
	slices.Sort(names)
	return names, nil
}

// limit is the error for a bound the run's writes are over.
func (p *wbPlan) limit(what string) error {
	return fmt.Errorf("%w: %s (at %q)", ErrWriteBackLimit, what, shortPath(p.path))
}

func (p *wbPlan) fail(op string, err error) error {
	return fmt.Errorf("%s %q: %w", op, shortPath(p.path), err)
}

// shortPath joins names into a path of at most about 100 bytes, whatever the depth
// and the names' lengths: messages stay short (a message that wrapped the error once
// per level grew with the square of the depth) and still say where.
func shortPath(names []string) string {
	p := strings.Join(names, "/")
	if p == "" {
		return "."
	}
	if len(p) <= 100 {
		return p
	}
	return p[:40] + "…" + p[len(p)-56:]
}
