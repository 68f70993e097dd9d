package job

import (
	"fmt"
	"time"
)

// MaxRunInputs is how many inputs one run may carry.
const MaxRunInputs = 10

// RunsConfig bounds runs (key "runs" of ojd.yaml): what a caller may ask for, and how
// long a run is kept.
type RunsConfig struct {
	// MaxTime and MaxMemoryMB are the most CPU time and memory (MiB) a run's program may
	// have per input; a caller asking for more gets these, and is told so.
	MaxTime     time.Duration `mapstructure:"max_time"`
	MaxMemoryMB int           `mapstructure:"max_memory"`
	// DefaultTime and DefaultMemoryMB apply when the caller asks for none.
	DefaultTime     time.Duration `mapstructure:"default_time"`
	DefaultMemoryMB int           `mapstructure:"default_memory"`
	// OutputBytes is how much of each input's stdout and of its stderr is kept (the rest
	// is counted and dropped, and the result says it was truncated).
	OutputBytes int `mapstructure:"output_bytes"`
	// MaxStdinBytes bounds a run's inputs, all of them together (413 beyond).
	MaxStdinBytes int `mapstructure:"max_stdin_bytes"`
	// Retention is how long a run is kept after it was made; older runs are deleted in
	// batches by the dispatcher, results and outputs included.
	Retention time.Duration `mapstructure:"retention"`
}

// DefaultRunsConfig returns the defaults: 2 s and 256 MiB unless asked, at most 10 s and
// 1 GiB, 64 KiB of each output, 1 MiB of input, kept for an hour.
func DefaultRunsConfig() RunsConfig {
	return RunsConfig{MaxTime: 10 * time.Second, MaxMemoryMB: 1024, DefaultTime: 2 * time.Second, DefaultMemoryMB: 256,
		OutputBytes: 64 << 10, MaxStdinBytes: 1 << 20, Retention: time.Hour}
}

// Validate names the first bad key.
func (c RunsConfig) Validate() error {
	switch {
	case c.MaxTime < 100*time.Millisecond || c.MaxTime > time.Minute:
		return fmt.Errorf("runs.max_time: %v not in 100ms..1m", c.MaxTime)
	case c.MaxMemoryMB < 16 || c.MaxMemoryMB > 64<<10:
		return fmt.Errorf("runs.max_memory: %d MiB not in 16..65536", c.MaxMemoryMB)
	case c.DefaultTime <= 0 || c.DefaultTime > c.MaxTime:
		return fmt.Errorf("runs.default_time: %v must be positive and at most runs.max_time", c.DefaultTime)
	case c.DefaultMemoryMB < 1 || c.DefaultMemoryMB > c.MaxMemoryMB:
		return fmt.Errorf("runs.default_memory: %d MiB must be positive and at most runs.max_memory", c.DefaultMemoryMB)
	case c.OutputBytes < 1 || c.OutputBytes > 16<<20:
		return fmt.Errorf("runs.output_bytes: %d not in 1..16MiB", c.OutputBytes)
	case c.MaxStdinBytes < 0 || c.MaxStdinBytes > 64<<20:
		return fmt.Errorf("runs.max_stdin_bytes: %d not in 0..64MiB", c.MaxStdinBytes)
	case c.Retention < time.Minute:
		return fmt.Errorf("runs.retention: %v is under 1m", c.Retention)
	}
	return nil
}

// Spec returns the spec of a run on stdins with the limits asked for (0: the default),
// clamped to the maxima, and one note per limit that was clamped.
func (c RunsConfig) Spec(stdins []string, timeMS, memoryMB int) (RunSpec, []string) {
	s := RunSpec{Stdins: stdins, TimeMS: timeMS, MemoryMB: memoryMB, OutputBytes: c.OutputBytes}
	if s.TimeMS <= 0 {
		s.TimeMS = int(c.DefaultTime.Milliseconds())
	}
	if s.MemoryMB <= 0 {
		s.MemoryMB = c.DefaultMemoryMB
	}
	var notes []string
	if max := int(c.MaxTime.Milliseconds()); s.TimeMS > max {
		notes = append(notes, fmt.Sprintf("time_ms %d is over the maximum (runs.max_time): %d applied", s.TimeMS, max))
		s.TimeMS = max
	}
	if s.MemoryMB > c.MaxMemoryMB {
		notes = append(notes, fmt.Sprintf("memory_mb %d is over the maximum (runs.max_memory): %d applied", s.MemoryMB, c.MaxMemoryMB))
		s.MemoryMB = c.MaxMemoryMB
	}
	s.Clamped = notes
	return s, notes
}

// Valid reports whether st is one of the run statuses.
func (st RunStatus) Valid() bool {
	switch st {
	case RunOK, RunTLE, RunMLE, RunOLE, RunRE, RunSE:
		return true
	}
	return false
}

// ValidRunOutcome reports whether o is something a run may end with: no verdict and one
// result per input, or CE (the source did not compile) or SE (it could not be run) and
// no results.
func ValidRunOutcome(o Outcome, inputs int) bool {
	switch o.Verdict {
	case "":
		if len(o.Runs) != inputs {
			return false
		}
		for _, r := range o.Runs {
			if !r.Status.Valid() {
				return false
			}
		}
		return true
	case VerdictCE, VerdictSE:
		return len(o.Runs) == 0
	}
	return false
}

// Bounds of a run's options (RunSpec) whatever the face that set them.
const (
	// MaxRunRepeats bounds RunSpec.Runs (Judge0's number_of_runs maximum).
	MaxRunRepeats = 20
	// MaxRunProcesses bounds RunSpec.Processes.
	MaxRunProcesses = 512
	// MaxRunArgs bounds RunSpec.Args and RunSpec.CompilerArgs, each.
	MaxRunArgs = 256
)

// ClampOptions clamps s's options to what the runs configuration allows, as Spec clamps
// its limits, and says so (each note is added to s.Clamped too): the CPU time with its
// extra at most runs.max_time, the wall time at most three times that and 1 s more, the
// stack at most the memory, the processes and the repeats at most MaxRunProcesses and
// MaxRunRepeats. Options that are not numbers (arguments, files) are the face's to
// bound. A negative option is taken as none.
func (c RunsConfig) ClampOptions(s *RunSpec) []string {
	var notes []string
	clamp := func(v *int, max int, what string) {
		switch {
		case *v < 0:
			*v = 0
		case *v > max:
			notes = append(notes, fmt.Sprintf("%s %d is over the maximum: %d applied", what, *v, max))
			*v = max
		}
	}
	maxCPU := int(c.MaxTime.Milliseconds())
	clamp(&s.ExtraTimeMS, max(maxCPU-s.TimeMS, 0), "extra_time_ms (runs.max_time with time_ms)")
	clamp(&s.WallMS, 3*maxCPU+1000, "wall_ms (3 × runs.max_time + 1 s)")
	clamp(&s.StackKB, s.MemoryMB<<10, "stack_kb (the memory limit)")
	clamp(&s.Processes, MaxRunProcesses, "processes")
	clamp(&s.MaxFileKB, 1<<30, "max_file_kb")
	clamp(&s.Runs, MaxRunRepeats, "runs")
	s.Clamped = append(s.Clamped, notes...)
	return notes
}
