package sandbox

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Config is the sandbox's part of ojd.yaml (key "sandbox"). The sandbox never reads
// the environment or a file itself: everything comes in through Config and Spec.
type Config struct {
	// PoolSize is the number of pre-created sandbox environments, i.e. how many runs
	// can execute at once. Size it by the worker's concurrency (× 2 for interactive
	// problems, which run two sandboxed processes at a time).
	PoolSize int `mapstructure:"pool_size"`
	// CgroupParent is the cgroup under which each pool creates its own sub-cgroup and
	// one cgroup per run. Relative: under this process's own cgroup (on each v1
	// hierarchy, or in the v2 tree); absolute: from the hierarchy's root.
	CgroupParent string `mapstructure:"cgroup_parent"`
	// CgroupVersion forces 1 or 2; 0 detects (v1 when a v1 memory hierarchy exists).
	CgroupVersion int `mapstructure:"cgroup_version"`
	// UIDBase and UIDCount give the range of unprivileged uids (and gids) runs use: slot
	// i runs as UIDBase+i, so concurrent runs never share a uid.
	UIDBase  int `mapstructure:"uid_base"`
	UIDCount int `mapstructure:"uid_count"`
	// StateDir holds short-lived mount points while slots start; empty means the
	// system's temporary directory.
	StateDir string `mapstructure:"state_dir"`
	// ReadOnly lists the host paths every sandbox sees read-only.
	ReadOnly []string `mapstructure:"read_only"`
	// EtcFiles lists what of /etc is visible (read-only); everything else of /etc, such
	// as shadow, is not.
	EtcFiles []string `mapstructure:"etc_files"`
	// Env is the environment of a run whose Spec.Env is nil.
	Env []string `mapstructure:"env"`

	// Default limits, used where a Spec's Limits field is zero.
	CPU          time.Duration `mapstructure:"cpu"`
	Wall         time.Duration `mapstructure:"wall"` // 0: 3 × CPU + 1 s
	MemoryBytes  int64         `mapstructure:"memory_bytes"`
	StackBytes   int64         `mapstructure:"stack_bytes"` // 0: same as memory
	OutputBytes  int64         `mapstructure:"output_bytes"`
	Pids         int           `mapstructure:"pids"`
	OpenFiles    int           `mapstructure:"open_files"`
	TmpBytes     int64         `mapstructure:"tmp_bytes"`      // size of each run's /tmp
	WorkDirBytes int64         `mapstructure:"work_dir_bytes"` // size of /w, or of what a run may write over Spec.Dir
	ShmBytes     int64         `mapstructure:"shm_bytes"`      // size of each run's /dev/shm
	CaptureBytes int           `mapstructure:"capture_bytes"`  // kept of a captured stream
	// PollInterval is how often a run's CPU time is checked against its limit.
	PollInterval time.Duration `mapstructure:"poll_interval"`
	// MaxStall bounds a run's stall (Result.Stalled: the time the host held it up,
	// waiting for a CPU or for its output to be read, which does not count against its
	// wall limit), as a multiple of its wall limit; a run stalled longer is ended as SE,
	// the host being too busy to judge it. A run takes at most (1 + MaxStall) × its
	// wall limit of real time.
	MaxStall float64 `mapstructure:"max_stall"`
	// FavorDynmods sets the host's cgroup2 option favordynmods when the pool starts
	// (cgroup.FavorDynmods): without it each run can wait ~10 ms for an RCU grace period
	// when it joins its cgroup. It is a host-wide setting; false leaves the host alone.
	FavorDynmods bool `mapstructure:"favor_dynmods"`
}

// MiB is 1 << 20 bytes.
const MiB = 1 << 20

// DefaultConfig returns every default.
func DefaultConfig() Config {
	return Config{
		PoolSize:     runtime.NumCPU(),
		CgroupParent: "oj",
		UIDBase:      60000,
		UIDCount:     1000,
		ReadOnly:     []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/usr"},
		EtcFiles: []string{
			"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
			"/etc/localtime", "/etc/timezone", "/etc/mime.types", "/etc/ssl/certs",
			"/etc/java-17-openjdk", "/etc/python3", "/etc/python3.11", "/etc/gcc",
		},
		Env:          []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/w", "LANG=C.UTF-8", "TMPDIR=/tmp"},
		CPU:          time.Second,
		MemoryBytes:  256 * MiB,
		OutputBytes:  64 * MiB,
		Pids:         64,
		OpenFiles:    256,
		TmpBytes:     64 * MiB,
		WorkDirBytes: 64 * MiB,
		ShmBytes:     64 * MiB,
		CaptureBytes: 64 << 10,
		PollInterval: 10 * time.Millisecond,
		MaxStall:     4,
		FavorDynmods: true,
	}
}

// Validate names the first bad key.
func (c Config) Validate() error {
	bad := func(key, why string) error { return fmt.Errorf("sandbox.%s: %s", key, why) }
	switch {
	case c.PoolSize < 1:
		return bad("pool_size", "must be ≥ 1")
	case c.CgroupParent == "" || strings.Contains(c.CgroupParent, ".."):
		return bad("cgroup_parent", "must be a non-empty path without ..")
	case c.CgroupVersion != 0 && c.CgroupVersion != 1 && c.CgroupVersion != 2:
		return bad("cgroup_version", "must be 0 (detect), 1 or 2")
	case c.UIDBase < 1000:
		return bad("uid_base", "must be ≥ 1000 (an unprivileged uid)")
	case c.UIDCount < c.PoolSize:
		return bad("uid_count", "must be ≥ pool_size (one uid per concurrent run)")
	case c.UIDBase+c.UIDCount > 1<<31:
		return bad("uid_count", "uid_base + uid_count must stay below 2^31")
	case c.CPU <= 0:
		return bad("cpu", "must be > 0")
	case c.Wall < 0:
		return bad("wall", "must be ≥ 0 (0: 3 × cpu + 1s)")
	case c.MemoryBytes < MiB:
		return bad("memory_bytes", "must be ≥ 1 MiB")
	case c.StackBytes < 0:
		return bad("stack_bytes", "must be ≥ 0 (0: same as memory)")
	case c.OutputBytes < 1:
		return bad("output_bytes", "must be ≥ 1")
	case c.Pids < 1:
		return bad("pids", "must be ≥ 1")
	case c.OpenFiles < 4:
		return bad("open_files", "must be ≥ 4")
	case c.TmpBytes < 1:
		return bad("tmp_bytes", "must be ≥ 1")
	case c.WorkDirBytes < 1:
		return bad("work_dir_bytes", "must be ≥ 1")
	case c.ShmBytes < 1:
		return bad("shm_bytes", "must be ≥ 1")
	case c.CaptureBytes < 0:
		return bad("capture_bytes", "must be ≥ 0")
	case c.PollInterval < time.Millisecond:
		return bad("poll_interval", "must be ≥ 1ms")
	case !(c.MaxStall > 0):
		return bad("max_stall", "must be > 0 (a multiple of a run's wall limit)")
	}
	for _, p := range c.ReadOnly {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p || p == "/" {
			return bad("read_only", fmt.Sprintf("%q must be a clean absolute path other than /", p))
		}
	}
	for _, p := range c.EtcFiles {
		if filepath.Clean(p) != p || !strings.HasPrefix(p, "/etc/") {
			return bad("etc_files", fmt.Sprintf("%q must be a clean path under /etc", p))
		}
	}
	return nil
}

// withDefaults fills the zero fields of l from the config.
func (c Config) withDefaults(l Limits) Limits {
	if l.CPU <= 0 {
		l.CPU = c.CPU
	}
	if l.Wall <= 0 {
		l.Wall = c.Wall
		if l.Wall <= 0 {
			l.Wall = 3*l.CPU + time.Second
		}
	}
	if l.Memory <= 0 {
		l.Memory = c.MemoryBytes
	}
	if l.Stack <= 0 {
		l.Stack = c.StackBytes
		if l.Stack <= 0 {
			l.Stack = l.Memory
		}
	}
	if l.Output <= 0 {
		l.Output = c.OutputBytes
	}
	if l.FileSize <= 0 {
		l.FileSize = l.Output
	}
	if l.Pids <= 0 {
		l.Pids = c.Pids
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = c.OpenFiles
	}
	return l
}
