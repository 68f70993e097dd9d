package job

import (
	"strings"
	"testing"
	"time"
)

func TestRunSpecClampsAndSaysSo(t *testing.T) {
	c := DefaultRunsConfig()
	cases := []struct {
		name             string
		timeMS, memoryMB int
		wantTime, wantMB int
		notes            []string
	}{
		{"defaults when nothing is asked", 0, 0, 2000, 256, nil},
		{"within the maxima", 1500, 64, 1500, 64, nil},
		{"at the maxima", 10_000, 1024, 10_000, 1024, nil},
		{"time over", 10_001, 64, 10_000, 64, []string{"runs.max_time"}},
		{"both over", 1 << 30, 1 << 20, 10_000, 1024, []string{"runs.max_time", "runs.max_memory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, notes := c.Spec([]string{"in"}, tc.timeMS, tc.memoryMB)
			if s.TimeMS != tc.wantTime || s.MemoryMB != tc.wantMB || s.OutputBytes != c.OutputBytes || len(s.Stdins) != 1 {
				t.Fatalf("spec %+v", s)
			}
			if len(notes) != len(tc.notes) || len(s.Clamped) != len(tc.notes) {
				t.Fatalf("notes %v, want ones naming %v", notes, tc.notes)
			}
			for i, key := range tc.notes {
				if !strings.Contains(notes[i], key) {
					t.Fatalf("note %q does not name %s", notes[i], key)
				}
			}
		})
	}
}

func TestRunsConfigValidateNamesTheKey(t *testing.T) {
	if err := DefaultRunsConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for key, mutate := range map[string]func(*RunsConfig){
		"runs.max_time":        func(c *RunsConfig) { c.MaxTime = time.Hour },
		"runs.max_memory":      func(c *RunsConfig) { c.MaxMemoryMB = 1 },
		"runs.default_time":    func(c *RunsConfig) { c.DefaultTime = c.MaxTime + time.Second },
		"runs.default_memory":  func(c *RunsConfig) { c.DefaultMemoryMB = c.MaxMemoryMB + 1 },
		"runs.output_bytes":    func(c *RunsConfig) { c.OutputBytes = 0 },
		"runs.max_stdin_bytes": func(c *RunsConfig) { c.MaxStdinBytes = -1 },
		"runs.retention":       func(c *RunsConfig) { c.Retention = time.Second },
	} {
		c := DefaultRunsConfig()
		mutate(&c)
		if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), key+":") {
			t.Errorf("%s: %v", key, err)
		}
	}
}

func TestValidRunOutcome(t *testing.T) {
	ok := Outcome{Runs: []RunResult{{Index: 1, Status: RunOK}, {Index: 2, Status: RunTLE}}}
	for name, c := range map[string]struct {
		o    Outcome
		want bool
	}{
		"a result per input":     {ok, true},
		"a result short":         {Outcome{Runs: ok.Runs[:1]}, false},
		"an unknown status":      {Outcome{Runs: []RunResult{{Status: "AC"}, {Status: RunOK}}}, false},
		"CE without results":     {Outcome{Verdict: VerdictCE}, true},
		"SE without results":     {Outcome{Verdict: VerdictSE}, true},
		"CE with results":        {Outcome{Verdict: VerdictCE, Runs: ok.Runs}, false},
		"a submission's verdict": {Outcome{Verdict: VerdictAC}, false},
	} {
		if got := ValidRunOutcome(c.o, 2); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}

// A run's options are clamped to the runs configuration and the bounds, each clamp said.
func TestRunOptionsAreClampedAndSaySo(t *testing.T) {
	c := DefaultRunsConfig()
	s := RunSpec{TimeMS: 9000, MemoryMB: 64, ExtraTimeMS: 5000, WallMS: 999_999, StackKB: 1 << 20, Processes: 10_000,
		Runs: 50, MaxFileKB: -1}
	notes := c.ClampOptions(&s)
	if s.ExtraTimeMS != 1000 || s.WallMS != 31_000 || s.StackKB != 64<<10 || s.Processes != MaxRunProcesses ||
		s.Runs != MaxRunRepeats || s.MaxFileKB != 0 || len(notes) != 5 || len(s.Clamped) != 5 {
		t.Fatalf("%+v, notes %q", s, notes)
	}
	within := RunSpec{TimeMS: 1000, MemoryMB: 64, ExtraTimeMS: 500, WallMS: 5000, StackKB: 8192, Processes: 60, Runs: 3}
	if notes := c.ClampOptions(&within); len(notes) != 0 || within.ExtraTimeMS != 500 || within.Runs != 3 {
		t.Fatalf("options within the bounds: %+v %q", within, notes)
	}
}
