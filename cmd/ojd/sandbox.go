package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"oj/sandbox"
)

// newSandboxCmd is "ojd sandbox run": one sandboxed run, for operators debugging a
// language setup.
func newSandboxCmd() *cobra.Command {
	parent := &cobra.Command{
		Use:   "sandbox",
		Short: "Run a command in the judge's sandbox",
	}
	parent.AddCommand(newSandboxRunCmd())
	return parent
}

// sandboxRunOutput is the one JSON object "ojd sandbox run" prints.
type sandboxRunOutput struct {
	Status sandbox.Status `json:"status"`
	CPUMs  int64          `json:"cpu_ms"`
	WallMs int64          `json:"wall_ms"`
	// StalledMs is the part of wall_ms the host held the run up (waiting for a CPU, or
	// for its output to be read), not counted against the wall limit.
	StalledMs int64  `json:"stalled_ms"`
	MemoryKB  int64  `json:"memory_kb"`
	ExitCode  int    `json:"exit_code"`
	Signal    int    `json:"signal"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Error     string `json:"error"`
}

// sandboxRunExcerpt is how much of stdout and stderr the JSON carries.
const sandboxRunExcerpt = 4 << 10

func newSandboxRunCmd() *cobra.Command {
	var (
		cpu, wall             time.Duration
		memory, output, stdin string
		dir                   string
		pids                  int
	)
	cmd := &cobra.Command{
		Use:   "run [flags] -- CMD [ARG...]",
		Short: "Run one command in the sandbox and print the result as JSON",
		Long: `Runs CMD in the sandbox with the given limits (DIR, if given, becomes the writable
work dir /w) and prints one JSON object:
{"status":"OK|TLE|MLE|OLE|RE|SE","cpu_ms","wall_ms","stalled_ms","memory_kb","exit_code",
 "signal","stdout","stderr","error"} (stdout and stderr cut to 4 KiB). stalled_ms is the
part of wall_ms the host held the run up (waiting for a CPU, or for its output to be
read): it does not count against --wall.
The exit code is 0 whenever the sandbox itself worked, whatever the program did.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			lim := sandbox.Limits{CPU: cpu, Wall: wall, Pids: pids}
			if lim.Memory, err = parseSize("--memory", memory); err != nil {
				return err
			}
			if lim.Output, err = parseSize("--output", output); err != nil {
				return err
			}
			sc := cfg.Sandbox
			sc.PoolSize = 1
			pool, err := sandbox.NewPool(sc)
			if err != nil {
				return err
			}
			defer pool.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, runErr := pool.Run(ctx, sandbox.Spec{
				Args: args, Dir: dir, StdinPath: stdin, Limits: lim,
				StdoutCap: sandboxRunExcerpt, StderrCap: sandboxRunExcerpt,
			})
			enc := json.NewEncoder(cmd.OutOrStdout())
			if err := enc.Encode(sandboxRunOutput{
				Status: res.Status, CPUMs: res.CPU.Milliseconds(), WallMs: res.Wall.Milliseconds(),
				StalledMs: res.Stalled.Milliseconds(),
				MemoryKB:  res.Memory / 1024, ExitCode: res.ExitCode, Signal: res.Signal,
				Stdout: string(res.Stdout), Stderr: string(res.Stderr), Error: res.Error,
			}); err != nil {
				return err
			}
			if runErr != nil {
				cmd.SilenceErrors = true // the JSON already says why
				return runErr
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.DurationVar(&cpu, "cpu", time.Second, "CPU time limit (all threads)")
	f.DurationVar(&wall, "wall", 0, "wall time limit (default 3 × cpu + 1s)")
	f.StringVar(&memory, "memory", "256MiB", "memory limit (no swap)")
	f.IntVar(&pids, "pids", 64, "processes + threads limit")
	f.StringVar(&output, "output", "64MiB", "output limit: stdout, stderr and each file written")
	f.StringVar(&stdin, "stdin", "", "file to use as standard input (default /dev/null)")
	f.StringVar(&dir, "dir", "", "host directory the program sees as its work dir /w; what it writes there is copied back after the run (default: an empty tmpfs)")
	return cmd
}

func parseSize(flag, s string) (int64, error) {
	n, err := humanize.ParseBytes(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", flag, err)
	}
	if n == 0 || n > 1<<50 {
		return 0, errors.New(flag + ": must be between 1 byte and 1 PiB")
	}
	return int64(n), nil
}
