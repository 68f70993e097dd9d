package seccomp

import (
	"fmt"
	"io"
	"os"
	"syscall"

	libseccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// Build returns the filter as a classic BPF program (an array of struct sock_filter).
func Build() ([]byte, error) {
	f, err := libseccomp.NewFilter(libseccomp.ActAllow)
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	defer f.Release()
	// The init sets no_new_privs itself, in the right order with the uid change.
	if err := f.SetNoNewPrivsBit(false); err != nil {
		return nil, fmt.Errorf("seccomp nnp: %w", err)
	}
	// A binary tree of syscall numbers instead of a linear list: shorter to run on every
	// system call, and about half the time for the kernel to load in each run's child.
	if err := f.SetOptimize(2); err != nil {
		return nil, fmt.Errorf("seccomp optimize: %w", err)
	}
	if err := f.SetBadArchAction(libseccomp.ActKillProcess); err != nil {
		return nil, fmt.Errorf("seccomp bad arch: %w", err)
	}
	eperm := libseccomp.ActErrno.SetReturnCode(int16(syscall.EPERM))
	for _, name := range Denied {
		sc, err := libseccomp.GetSyscallFromName(name)
		if err != nil {
			continue
		}
		if err := f.AddRule(sc, eperm); err != nil {
			return nil, fmt.Errorf("seccomp deny %s: %w", name, err)
		}
	}
	clone, err := libseccomp.GetSyscallFromName("clone")
	if err != nil {
		return nil, fmt.Errorf("seccomp clone: %w", err)
	}
	for _, flag := range namespaceFlags {
		c, err := libseccomp.MakeCondition(0, libseccomp.CompareMaskedEqual, flag, flag)
		if err != nil {
			return nil, fmt.Errorf("seccomp clone condition: %w", err)
		}
		if err := f.AddRuleConditional(clone, eperm, []libseccomp.ScmpCondition{c}); err != nil {
			return nil, fmt.Errorf("seccomp clone rule: %w", err)
		}
	}
	if clone3, err := libseccomp.GetSyscallFromName("clone3"); err == nil {
		if err := f.AddRule(clone3, libseccomp.ActErrno.SetReturnCode(int16(syscall.ENOSYS))); err != nil {
			return nil, fmt.Errorf("seccomp clone3: %w", err)
		}
	}
	if sched, err := libseccomp.GetSyscallFromName("sched_setscheduler"); err == nil {
		// The comparison is on the whole register: only exactly SCHED_OTHER passes.
		c, err := libseccomp.MakeCondition(1, libseccomp.CompareNotEqual, SchedPolicyAllowed)
		if err != nil {
			return nil, fmt.Errorf("seccomp sched_setscheduler condition: %w", err)
		}
		if err := f.AddRuleConditional(sched, eperm, []libseccomp.ScmpCondition{c}); err != nil {
			return nil, fmt.Errorf("seccomp sched_setscheduler: %w", err)
		}
	}
	if err := allowSocketFamilies(f, AllowedSocketFamilies); err != nil {
		return nil, err
	}
	if pers, err := libseccomp.GetSyscallFromName("personality"); err == nil {
		for _, bit := range personalityBits {
			// Bit 31 is in the mask so the query value 0xffffffff never matches.
			c, err := libseccomp.MakeCondition(0, libseccomp.CompareMaskedEqual, bit|0x80000000, bit)
			if err != nil {
				return nil, fmt.Errorf("seccomp personality condition: %w", err)
			}
			if err := f.AddRuleConditional(pers, eperm, []libseccomp.ScmpCondition{c}); err != nil {
				return nil, fmt.Errorf("seccomp personality: %w", err)
			}
		}
	}
	// ExportBPFMem needs libseccomp 2.6; a memfd works with 2.5 (Debian 12).
	fd, err := unix.MemfdCreate("oj-seccomp", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("seccomp export: %w", err)
	}
	mf := os.NewFile(uintptr(fd), "oj-seccomp")
	defer mf.Close()
	if err := f.ExportBPF(mf); err != nil {
		return nil, fmt.Errorf("seccomp export: %w", err)
	}
	b, err := io.ReadAll(io.NewSectionReader(mf, 0, 1<<24))
	if err != nil {
		return nil, fmt.Errorf("seccomp export: %w", err)
	}
	return b, nil
}

// allowSocketFamilies refuses socket and socketpair with EAFNOSUPPORT unless their
// first argument (the domain) is one of families: one rule per call that matches every
// domain outside the list. The comparison is on the whole 64-bit register, so a domain
// with high bits set (which the kernel would truncate) is refused too.
func allowSocketFamilies(f *libseccomp.ScmpFilter, families []uint64) error {
	refuse := libseccomp.ActErrno.SetReturnCode(int16(syscall.EAFNOSUPPORT))
	for _, name := range []string{"socket", "socketpair"} {
		sc, err := libseccomp.GetSyscallFromName(name)
		if err != nil {
			return fmt.Errorf("seccomp %s: %w", name, err)
		}
		var conds []libseccomp.ScmpCondition
		for _, fam := range families {
			c, err := libseccomp.MakeCondition(0, libseccomp.CompareNotEqual, fam)
			if err != nil {
				return fmt.Errorf("seccomp %s condition: %w", name, err)
			}
			conds = append(conds, c)
		}
		if len(conds) == 0 {
			err = f.AddRule(sc, refuse)
		} else {
			// Conditions of one rule all have to hold: the domain is none of families.
			err = f.AddRuleConditional(sc, refuse, conds)
		}
		if err != nil {
			return fmt.Errorf("seccomp %s rule: %w", name, err)
		}
	}
	return nil
}
