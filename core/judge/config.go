package judge

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"oj/core/judge/cache"
	"oj/core/judge/problem"
)

// Config is the judge's part of ojd.yaml (key "judge").
type Config struct {
	// WorkDir holds the per-task directories (removed after each task) and the
	// worker's precompiled headers.
	WorkDir string `mapstructure:"work_dir"`
	// LanguagesFile is a languages file; empty means the embedded defaults.
	LanguagesFile string         `mapstructure:"languages_file"`
	Cache         cache.Config   `mapstructure:"cache"`
	PackageLimits problem.Limits `mapstructure:"package_limits"`
	// Compile bounds every compilation (a language's compile_time_factor scales CPU
	// and wall).
	Compile Limits `mapstructure:"compile"`
	// ToolCompile bounds the compile of a package's testlib checker or interactor, once
	// per package on each worker (testlib.h alone takes seconds of CPU).
	ToolCompile Limits `mapstructure:"tool_compile"`
	// ToolIncludeDirs are host directories (absolute) shown read-only to checker and
	// interactor compiles and passed to the compiler as -I: where an admin puts testlib.h
	// for the packages that do not carry it. A header at the package's top level wins.
	ToolIncludeDirs []string `mapstructure:"tool_include_dirs"`
	// Checker bounds testlib checkers and interactors (an interactor's wall limit also
	// follows the solution's).
	Checker Limits `mapstructure:"checker"`
	// OutputLimitMB bounds what one run may write (OLE beyond).
	OutputLimitMB int `mapstructure:"output_limit_mb"`
	// WallFactor and WallExtra give a run's wall limit: CPU limit × factor + extra.
	WallFactor float64       `mapstructure:"wall_factor"`
	WallExtra  time.Duration `mapstructure:"wall_extra"`
	// SubmissionWall is the wall time all of a submission's cases share: once it is
	// used, the remaining cases are not run (SK) and the verdict is TLE unless a case
	// already failed. 0: no budget.
	SubmissionWall time.Duration `mapstructure:"submission_wall"`
	// CompileOutputBytes bounds the compiler output returned and stored.
	CompileOutputBytes int `mapstructure:"compile_output_bytes"`
	// ExcerptBytes bounds each stored stdout/stderr excerpt of a case.
	ExcerptBytes int `mapstructure:"excerpt_bytes"`
	// PrecompiledHeaders builds each language's precompiled header and warms its
	// compile cache once per worker (in the background; compiles go without until then).
	PrecompiledHeaders bool `mapstructure:"precompiled_headers"`
	// StoreArtefacts writes compile logs and case excerpts to the object store.
	StoreArtefacts bool `mapstructure:"store_artefacts"`
	// TasksTmpfsBytes sizes the tmpfs mounted on <work_dir>/tasks, where every task's
	// directories (and so every sandboxed program's writable work dir) live. On tmpfs a
	// file a program writes is charged to its run's memory cgroup, so files cannot fill
	// the host's disk: many files count against the memory limit (MLE), as one large
	// file counts against the output limit (OLE). 0 keeps tasks on the work dir's own
	// filesystem (not for untrusted code).
	TasksTmpfsBytes int64 `mapstructure:"tasks_tmpfs_bytes"`
}

// Limits bound an auxiliary run (compiler, checker, interactor).
type Limits struct {
	CPU       time.Duration `mapstructure:"cpu"`
	Wall      time.Duration `mapstructure:"wall"`
	MemoryMB  int           `mapstructure:"memory_mb"`
	OutputMB  int           `mapstructure:"output_mb"`
	Processes int           `mapstructure:"processes"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		WorkDir:            "/var/lib/oj/work",
		Cache:              cache.DefaultConfig(),
		PackageLimits:      problem.DefaultLimits(),
		Compile:            Limits{CPU: 10 * time.Second, Wall: 20 * time.Second, MemoryMB: 1024, OutputMB: 64, Processes: 32},
		ToolCompile:        Limits{CPU: 30 * time.Second, Wall: 60 * time.Second, MemoryMB: 2048, OutputMB: 64, Processes: 32},
		Checker:            Limits{CPU: 10 * time.Second, Wall: 20 * time.Second, MemoryMB: 1024, OutputMB: 16, Processes: 1},
		OutputLimitMB:      64,
		WallFactor:         3,
		WallExtra:          time.Second,
		SubmissionWall:     2 * time.Minute,
		CompileOutputBytes: 16 << 10,
		ExcerptBytes:       1 << 10,
		PrecompiledHeaders: true,
		StoreArtefacts:     true,
		TasksTmpfsBytes:    4 << 30,
	}
}

// Validate names the first bad key.
func (c Config) Validate() error {
	switch {
	case c.WorkDir == "":
		return errors.New("judge.work_dir: empty")
	case c.OutputLimitMB <= 0:
		return errors.New("judge.output_limit_mb: must be > 0")
	case c.WallFactor < 1:
		return errors.New("judge.wall_factor: must be >= 1")
	case c.WallExtra < 0:
		return errors.New("judge.wall_extra: must be >= 0")
	case c.SubmissionWall < 0:
		return errors.New("judge.submission_wall: must be >= 0 (0: no budget)")
	case c.CompileOutputBytes <= 0:
		return errors.New("judge.compile_output_bytes: must be > 0")
	case c.ExcerptBytes < 0:
		return errors.New("judge.excerpt_bytes: must be >= 0")
	case c.TasksTmpfsBytes != 0 && c.TasksTmpfsBytes < 64<<20:
		return errors.New("judge.tasks_tmpfs_bytes: must be 0 or at least 64 MiB")
	}
	if err := c.Compile.validate("judge.compile"); err != nil {
		return err
	}
	if err := c.ToolCompile.validate("judge.tool_compile"); err != nil {
		return err
	}
	if err := c.Checker.validate("judge.checker"); err != nil {
		return err
	}
	for _, d := range c.ToolIncludeDirs {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("judge.tool_include_dirs: %q: want an absolute path", d)
		}
	}
	if err := c.Cache.Validate(); err != nil {
		return fmt.Errorf("judge.%w", err)
	}
	if err := c.PackageLimits.Validate(); err != nil {
		return fmt.Errorf("judge.package_limits.%w", err)
	}
	return nil
}

func (l Limits) validate(key string) error {
	switch {
	case l.CPU <= 0:
		return fmt.Errorf("%s.cpu: must be > 0", key)
	case l.Wall < l.CPU:
		return fmt.Errorf("%s.wall: must be >= cpu", key)
	case l.MemoryMB <= 0:
		return fmt.Errorf("%s.memory_mb: must be > 0", key)
	case l.OutputMB <= 0:
		return fmt.Errorf("%s.output_mb: must be > 0", key)
	case l.Processes <= 0:
		return fmt.Errorf("%s.processes: must be > 0", key)
	}
	return nil
}
