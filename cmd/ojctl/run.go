package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newRunCmd(a *app) *cobra.Command {
	var (
		lang, memory string
		stdins       []string
		limit        time.Duration
		timeout      time.Duration
		meta         []string
	)
	cmd := &cobra.Command{
		Use:   "run FILE [--lang L] [--stdin FILE]… [--time 2s] [--memory 256MiB]",
		Short: "Run a program on your own input, no problem needed (the Run button)",
		Long: `Run FILE on the server's sandbox, once per --stdin FILE (up to 10; "-" reads this
terminal's standard input; none: one run on empty input), and print what it wrote
as a terminal would: its stdout on stdout, its stderr on stderr, then a status line
per input on stderr (OK, TLE, MLE, OLE, RE or SE, with exit code or signal, CPU and
wall time, memory). A compiled language is compiled once; a compile error prints the
compiler's output.

--time is the CPU time per input, --memory the memory (256MiB, 1GiB, or a number of
MiB). The server clamps both to its maxima (runs.max_time, runs.max_memory) and says
so. Output beyond the server's runs.output_bytes per stream is cut, and marked.

The language is guessed from the extension as for submit. With -o json stdout holds
the finished run exactly as GET /api/v1/runs/{id} returns it.

Exit code 0 when every input ran OK; 1 when one did not, or the source did not
compile; 2 for a usage error.`,
		Example: `  ojctl run a.cpp --stdin in1.txt --stdin in2.txt
  echo '1 2' | ojctl run sol.py --stdin -
  ojctl run a.cpp --stdin big.txt --time 5s --memory 512MiB -o json | jq '.results[].status'`,
		Args: cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			if lang == "" {
				lang = languageByExt[strings.ToLower(filepath.Ext(args[0]))]
				if lang == "" {
					return usagef("cannot guess the language of %s from its extension: pass --lang (see ojctl languages)", args[0])
				}
			}
			if len(stdins) > 10 {
				return usagef("--stdin: %d inputs, at most 10", len(stdins))
			}
			src, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			req := wire.RunRequest{Language: lang, Source: string(src), Limits: &wire.RunLimits{}}
			for _, f := range stdins {
				b, err := readInput(cmd.InOrStdin(), f)
				if err != nil {
					return err
				}
				req.Stdins = append(req.Stdins, string(b))
			}
			if limit < 0 || (limit > 0 && limit < time.Millisecond) {
				return usagef("--time %s: want a positive duration of at least 1ms, e.g. 2s or 500ms", limit)
			}
			req.Limits.TimeMS = int(limit.Milliseconds())
			if memory != "" {
				mb, err := parseMiB(memory)
				if err != nil {
					return usagef("--memory %q: %v", memory, err)
				}
				req.Limits.MemoryMB = mb
			}
			if req.Metadata, err = parseMeta(meta); err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			wait := int64(10_000)
			req.WaitMS = &wait
			res, err := c.Run(ctx, req)
			if err != nil {
				return err
			}
			run, err := waitRun(ctx, c, res)
			if err != nil {
				if ctx.Err() == context.DeadlineExceeded {
					return failf("run %s not finished within %s", res.ID(), timeout)
				}
				return err
			}
			if err := a.print(run, func(p *printer) { a.printRun(run) }); err != nil {
				return err
			}
			return runExit(run)
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&lang, "lang", "l", "", "language id (default: guessed from the file's extension)")
	f.StringArrayVar(&stdins, "stdin", nil, `a file to give the program as standard input, "-" for this terminal's (repeatable, at most 10: one run each)`)
	f.DurationVar(&limit, "time", 0, "CPU time per input (default: the server's runs.default_time)")
	f.StringVar(&memory, "memory", "", "memory per input, e.g. 256MiB or 1GiB (default: the server's runs.default_memory)")
	f.DurationVar(&timeout, "timeout", 5*time.Minute, "give up waiting for the run after this long (0: never)")
	f.StringArrayVar(&meta, "meta", nil, "metadata to tag the run with, key=value (repeatable)")
	return cmd
}

// readInput reads one --stdin: a file, or "-" for ojctl's own standard input.
func readInput(stdin io.Reader, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}

// parseMiB reads a memory size as MiB: 256MiB, 256M, 1GiB, 1G, or a bare number of MiB.
func parseMiB(s string) (int, error) {
	num, unit := s, ""
	if i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }); i >= 0 {
		num, unit = s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("want a positive size such as 256MiB or 1GiB")
	}
	switch unit {
	case "", "m", "mb", "mib":
	case "g", "gb", "gib":
		v *= 1024
	case "k", "kb", "kib":
		v /= 1024
	default:
		return 0, fmt.Errorf("unknown unit %q (KiB, MiB or GiB)", unit)
	}
	if v < 1 {
		return 0, fmt.Errorf("under 1 MiB")
	}
	return int(v), nil
}

// waitRun returns the finished run: the answer itself when the server waited long
// enough, else GET /api/v1/runs/{id} every while until it is terminal.
func waitRun(ctx context.Context, c *client.Client, res *client.RunResult) (*wire.Run, error) {
	if res.Run != nil && res.Run.Terminal() {
		return res.Run, nil
	}
	delay := 200 * time.Millisecond
	for {
		run, err := c.GetRun(ctx, res.ID())
		if err != nil {
			return nil, err
		}
		if run.Terminal() {
			return run, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// printRun prints a run as a terminal would have shown it: each input's stdout and
// stderr, then its status line (on stderr, so that stdout is the program's alone).
func (a *app) printRun(run *wire.Run) {
	for _, n := range run.Clamped {
		fmt.Fprintln(a.stderr, "note: "+n)
	}
	if run.Verdict != nil && *run.Verdict == "CE" {
		fmt.Fprint(a.stderr, run.CompileOutput)
		fmt.Fprintln(a.stderr, "── compile error")
		return
	}
	if run.Verdict != nil {
		fmt.Fprintf(a.stderr, "── %s: %s\n", *run.Verdict, run.Error)
		return
	}
	if run.State != "finished" {
		fmt.Fprintf(a.stderr, "── run %s\n", run.State)
		return
	}
	for _, r := range run.Results {
		fmt.Fprint(a.stdout, r.Stdout)
		if r.StdoutTruncated {
			fmt.Fprintf(a.stdout, "\n[stdout cut at %d bytes]\n", run.Limits.OutputBytes)
		}
		fmt.Fprint(a.stderr, r.Stderr)
		if r.StderrTruncated {
			fmt.Fprintf(a.stderr, "\n[stderr cut at %d bytes]\n", run.Limits.OutputBytes)
		}
		fmt.Fprintln(a.stderr, runStatusLine(len(run.Results), r))
	}
}

// runStatusLine is one input's status line.
func runStatusLine(inputs int, r wire.RunResult) string {
	var b strings.Builder
	b.WriteString("── ")
	if inputs > 1 {
		fmt.Fprintf(&b, "input %d: ", r.Index)
	}
	b.WriteString(r.Status)
	switch {
	case r.Signal != 0:
		fmt.Fprintf(&b, " · signal %d", r.Signal)
	default:
		fmt.Fprintf(&b, " · exit %d", r.ExitCode)
	}
	fmt.Fprintf(&b, " · %d ms CPU · %d ms wall · %.1f MiB", r.TimeMS, r.WallMS, float64(r.MemoryKB)/1024)
	if r.Message != "" && r.Status != "OK" {
		b.WriteString(" · " + r.Message)
	}
	return b.String()
}

// runExit is ojctl run's exit: 0 when every input ran OK.
func runExit(run *wire.Run) error {
	switch {
	case run.Verdict != nil && *run.Verdict == "CE":
		return failf("run %s: compile error", run.ID)
	case run.Verdict != nil:
		return failf("run %s: %s: %s", run.ID, *run.Verdict, run.Error)
	case run.State != "finished":
		return failf("run %s ended %s", run.ID, run.State)
	}
	bad := 0
	for _, r := range run.Results {
		if r.Status != "OK" {
			bad++
		}
	}
	if bad > 0 {
		return failf("run %s: %d of %d inputs did not run OK", run.ID, bad, len(run.Results))
	}
	return nil
}
