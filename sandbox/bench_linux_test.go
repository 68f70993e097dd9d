package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchRow is one line of the table BenchmarkSandbox prints.
type benchRow struct {
	name     string
	p50, p99 time.Duration
	perSec   float64
	baseline string // the plain row this one is compared with
}

// measure runs fn n times on par goroutines and returns per-run latencies and runs/s.
func measure(b *testing.B, par int, fn func() error) benchRow {
	b.Helper()
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	per := (b.N + par - 1) / par
	for range par {
		wg.Go(func() {
			mine := make([]time.Duration, 0, per)
			for range per {
				t0 := time.Now()
				if err := fn(); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	el := time.Since(start)
	slices.Sort(lat)
	if len(lat) == 0 {
		return benchRow{}
	}
	r := benchRow{
		p50:    lat[len(lat)/2],
		p99:    lat[min(len(lat)-1, len(lat)*99/100)],
		perSec: float64(len(lat)) / el.Seconds(),
	}
	b.ReportMetric(float64(r.p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(r.p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(r.perSec, "runs/s")
	return r
}

// BenchmarkSandbox compares sandboxed runs of /bin/true and of a static C A+B with a
// plain fork+exec of the same binaries, sequentially and 2 in parallel, and prints a
// table. Every sandboxed run has its limits enforced and is measured (cgroup CPU and
// memory, wall time), as in production. The workdir rows run A+B the way the judge
// runs a case: in a work dir (an overlay over a host directory, writes discarded),
// reading its input from a file.
func BenchmarkSandbox(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	cfg := DefaultConfig()
	cfg.PoolSize = 2
	p, err := NewPool(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	aplusb := bin("aplusb")
	input := "1 2\n"
	plain := func(args ...string) func() error {
		return func() error {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Stdin = strings.NewReader(input)
			return cmd.Run()
		}
	}
	// The judge's path: a work dir seen through an overlay whose writes are discarded,
	// the program's input from a file.
	work := b.TempDir()
	if err := os.Chmod(work, 0o755); err != nil {
		b.Fatal(err)
	}
	inFile := filepath.Join(work, "input")
	if err := os.WriteFile(inFile, []byte(input), 0o644); err != nil {
		b.Fatal(err)
	}
	boxedIn := func(dir string, args ...string) func() error {
		return func() error {
			spec := Spec{
				Args: args, Stdin: strings.NewReader(input), ReadOnly: []string{bins},
				Limits: Limits{CPU: time.Second, Memory: 256 * MiB},
			}
			if dir != "" {
				spec.Dir, spec.DiscardWrites, spec.Stdin, spec.StdinPath = dir, true, nil, inFile
			}
			res, err := p.Run(context.Background(), spec)
			if err != nil {
				return err
			}
			if res.Status != OK || res.CPU <= 0 || res.Memory <= 0 {
				return fmt.Errorf("status %s cpu %v memory %d", res.Status, res.CPU, res.Memory)
			}
			return nil
		}
	}
	boxed := func(args ...string) func() error { return boxedIn("", args...) }
	cases := []struct {
		name, baseline string
		par            int
		fn             func() error
	}{
		{"plain/true/seq", "", 1, plain("/bin/true")},
		{"plain/true/par2", "", 2, plain("/bin/true")},
		{"plain/aplusb/seq", "", 1, plain(aplusb)},
		{"plain/aplusb/par2", "", 2, plain(aplusb)},
		{"sandbox/true/seq", "plain/true/seq", 1, boxed("/bin/true")},
		{"sandbox/true/par2", "plain/true/par2", 2, boxed("/bin/true")},
		{"sandbox/aplusb/seq", "plain/aplusb/seq", 1, boxed(aplusb)},
		{"sandbox/aplusb/par2", "plain/aplusb/par2", 2, boxed(aplusb)},
		{"workdir/aplusb/seq", "plain/aplusb/seq", 1, boxedIn(work, aplusb)},
		{"workdir/aplusb/par2", "plain/aplusb/par2", 2, boxedIn(work, aplusb)},
	}
	rows := map[string]benchRow{}
	var order []string
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			r := measure(b, c.par, c.fn)
			r.name, r.baseline = c.name, c.baseline
			rows[c.name] = r
		})
		order = append(order, c.name)
	}
	fmt.Printf("\n%-22s %10s %10s %10s %14s %12s\n", "case", "p50", "p99", "runs/s", "p50 vs plain", "overhead/run")
	for _, n := range order {
		r, ok := rows[n]
		if !ok {
			continue
		}
		ratio, over := "", ""
		if base, ok := rows[r.baseline]; ok && base.p50 > 0 {
			ratio = fmt.Sprintf("%.2fx", float64(r.p50)/float64(base.p50))
			over = (r.p50 - base.p50).Round(time.Microsecond).String()
		}
		fmt.Printf("%-22s %10v %10v %10.0f %14s %12s\n", n, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.perSec, ratio, over)
	}
}
