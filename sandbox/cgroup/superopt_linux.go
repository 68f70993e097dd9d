package cgroup

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"oj/sandbox/mountinfo"
)

// addSuperOption adds opt ("name" or "name=value") to the options of the superblock
// mounted at point, and changes nothing else.
//
// It reconfigures the superblock through fspick(2) and fsconfig(2), never with
// mount(2)'s MS_REMOUNT: that one applies the ro, nosuid, nodev, noexec and atime flags
// it is given to the superblock and to the mount, so a remount that repeats the flags
// of the mount found first — a read-only bind of the hierarchy, say — turns every mount
// of it read-only. A reconfigure through fspick sets no mount flag, and leaves the
// superblock's ro/rw alone unless "ro" or "rw" is passed, which this never does.
//
// It repeats every other option the superblock has: cgroup2 sets each of its options
// (nsdelegate, memory_recursiveprot, …) from the request alone, so one left out would
// be cleared; other filesystems, tmpfs among them, change only what is named.
//
// Afterwards every mount of the superblock must have kept its own flags and the
// superblock must have exactly its old options plus opt; otherwise — or when the
// reconfigure itself failed after changing something — the old options are set back
// and the error says what differed.
func addSuperOption(point, opt string) error {
	fd, err := unix.Open(point, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", point, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", point, err)
	}
	before, err := superMounts(st.Dev, point)
	if err != nil {
		return err
	}
	old := before[0].super
	want := withOption(old, opt)
	err = reconfigure(fd, want)
	after, rerr := superMounts(st.Dev, point)
	switch {
	case rerr != nil:
		return errors.Join(err, rerr)
	case err != nil:
		if differs(before, after, old) == "" {
			return fmt.Errorf("%s: %w", point, err)
		}
		return fmt.Errorf("%s: %w, %s", point, err, revert(fd, st.Dev, point, before, old))
	}
	if d := differs(before, after, want); d != "" {
		return fmt.Errorf("%s: %s after adding %s; %s", point, d, opt, revert(fd, st.Dev, point, before, old))
	}
	return nil
}

// superMounts returns the mounts of the superblock dev, the one at point first.
func superMounts(dev uint64, point string) ([]mountEntry, error) {
	all, err := readMountinfo()
	if err != nil {
		return nil, err
	}
	var at *mountEntry
	var out []mountEntry
	for i, m := range all {
		if m.dev != dev {
			continue
		}
		out = append(out, m)
		if m.point == point {
			at = &all[i] // the last one: a mount over another at the same point hides it
		}
	}
	if at == nil {
		return nil, fmt.Errorf("%s: not a mount point of its filesystem", point)
	}
	return append([]mountEntry{*at}, out...), nil
}

// withOption is opts with opt added, replacing an option of the same name.
func withOption(opts []string, opt string) []string {
	name, _, _ := strings.Cut(opt, "=")
	out := slices.DeleteFunc(slices.Clone(opts), func(o string) bool {
		n, _, _ := strings.Cut(o, "=")
		return n == name
	})
	return append(out, opt)
}

// reconfigure sets the options opts (as mountinfo shows them; ro and rw are skipped) on
// the superblock of the mount at fd.
func reconfigure(fd int, opts []string) error {
	fs, err := unix.Fspick(fd, "", unix.FSPICK_CLOEXEC|unix.FSPICK_EMPTY_PATH|unix.FSPICK_NO_AUTOMOUNT)
	if err != nil {
		return fmt.Errorf("fspick: %w", err)
	}
	defer unix.Close(fs)
	for _, o := range opts {
		if o == "rw" || o == "ro" || o == "" {
			continue
		}
		name, value, hasValue := strings.Cut(o, "=")
		if hasValue {
			err = unix.FsconfigSetString(fs, name, mountinfo.Unescape(value))
		} else {
			err = unix.FsconfigSetFlag(fs, name)
		}
		if err != nil {
			return fmt.Errorf("fsconfig %s: %w", o, err)
		}
	}
	if err := unix.FsconfigReconfigure(fs); err != nil {
		return fmt.Errorf("fsconfig reconfigure: %w", err)
	}
	return nil
}

// differs says how after differs from before with the superblock options super ("" when
// it does not): a mount's own flags, or the superblock's options.
func differs(before, after []mountEntry, super []string) string {
	for _, a := range after[1:] {
		for _, b := range before[1:] {
			if a.id == b.id && a.opts != b.opts {
				return fmt.Sprintf("mount %s changed from %s to %s", a.point, b.opts, a.opts)
			}
		}
	}
	got, want := slices.Sorted(slices.Values(after[0].super)), slices.Sorted(slices.Values(super))
	if !slices.Equal(got, want) {
		return fmt.Sprintf("superblock options are %s, not %s", strings.Join(after[0].super, ","), strings.Join(super, ","))
	}
	return ""
}

// revert sets the superblock's options back to old and says whether that restored the
// state before.
func revert(fd int, dev uint64, point string, before []mountEntry, old []string) string {
	if err := reconfigure(fd, old); err != nil {
		return "reverting failed: " + err.Error()
	}
	now, err := superMounts(dev, point)
	if err != nil {
		return "reverted, but could not check: " + err.Error()
	}
	if d := differs(before, now, old); d != "" {
		return "reverted, but " + d
	}
	return "reverted"
}
