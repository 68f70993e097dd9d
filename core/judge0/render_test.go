package judge0

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/lang"
	"oj/core/store"
)

func testLanguages(t *testing.T) *Languages {
	t.Helper()
	return NewLanguages(lang.Default(), map[string]string{"cpp17": "C++17 (g++ 12.2.0)"})
}

func TestLanguageIDsReachConfiguredLanguages(t *testing.T) {
	ls := testLanguages(t)
	for id, want := range map[int]string{54: "cpp17", 76: "cpp17", 71: "python3", 100: "python3", 62: "java17", 91: "java17", 60: "go", 73: "rust"} {
		l, ok := ls.Get(id)
		if !ok || l.OJ.ID != want {
			t.Errorf("id %d: got %+v, want oj %s", id, l, want)
		}
	}
	if l, _ := ls.Get(54); !strings.HasPrefix(l.Name, "C++ (") || !strings.Contains(l.Name, "g++ 12.2.0") {
		t.Errorf("54 is named %q: want Judge0's family and the detected version", l.Name)
	}
	// A language no live worker announced is named from the file, without a version and
	// without the file's {version} placeholder.
	for _, l := range NewLanguages(lang.Default(), nil).All() {
		if strings.ContainsAny(l.Name, "{}") || strings.Contains(l.Name, "()") {
			t.Errorf("id %d is named %q without a detected version", l.ID, l.Name)
		}
	}
	if _, ok := ls.Get(44); ok {
		t.Errorf("44 (Executable) is served; oj offers no such language")
	}
	seen := map[int]bool{}
	for _, e := range languageIDs {
		if seen[e.ID] {
			t.Errorf("id %d listed twice", e.ID)
		}
		seen[e.ID] = true
	}
}

func finished(r job.RunResult, expected *string) *store.Submission {
	e, _ := json.Marshal(Echo{LanguageID: 71, ExpectedOutput: expected, NumberOfRuns: 1, CPUTimeLimit: 5})
	end := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	return &store.Submission{ID: "x", Language: "python3", Source: "print(1)", State: job.StateFinished,
		Kind: job.KindRun, Run: &job.RunSpec{Face: e, Stdins: []string{"1 2"}, TimeMS: 5000},
		RunResults: []job.RunResult{r}, CreatedAt: end.Add(-time.Second), FinishedAt: &end, PublicToken: "tok"}
}

func status(t *testing.T, s *store.Submission) (Status, Ordered) {
	t.Helper()
	o, err := Render(s, "tok", testLanguages(t), Fields, true)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := o.Get("status")
	return v.(Status), o
}

func TestStatusesFollowJudge0(t *testing.T) {
	exp := "3"
	for _, c := range []struct {
		name string
		r    job.RunResult
		want Status
		msg  string
	}{
		{"accepted", job.RunResult{Status: job.RunOK, Stdout: "3\n"}, StatusAccepted, ""},
		{"wrong", job.RunResult{Status: job.RunOK, Stdout: "4\n"}, StatusWrong, ""},
		{"cpu tle", job.RunResult{Status: job.RunTLE, TimeMS: 5100}, StatusTLE, "Time limit exceeded"},
		{"wall tle", job.RunResult{Status: job.RunTLE, TimeMS: 3}, StatusTLE, "Time limit exceeded (wall clock)"},
		{"mle", job.RunResult{Status: job.RunMLE}, StatusOther, "Memory limit exceeded"},
		{"ole", job.RunResult{Status: job.RunOLE}, StatusSIGXFSZ, "Output limit exceeded"},
		{"segv", job.RunResult{Status: job.RunRE, Signal: 11}, StatusSIGSEGV, "Caught fatal signal 11"},
		{"fpe", job.RunResult{Status: job.RunRE, Signal: 8}, StatusSIGFPE, "Caught fatal signal 8"},
		{"abrt", job.RunResult{Status: job.RunRE, Signal: 6}, StatusSIGABRT, "Caught fatal signal 6"},
		{"kill", job.RunResult{Status: job.RunRE, Signal: 9}, StatusOther, "Caught fatal signal 9"},
		{"nzec", job.RunResult{Status: job.RunRE, ExitCode: 3}, StatusNZEC, "Exited with error status 3"},
		{"se", job.RunResult{Status: job.RunSE, Message: "sandbox\ndetails"}, StatusInternal, "sandbox"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, o := status(t, finished(c.r, &exp))
			if st != c.want {
				t.Fatalf("status %+v, want %+v", st, c.want)
			}
			m, _ := o.Get("message")
			got := ""
			if p := m.(*string); p != nil {
				got = Decode(*p)
			}
			if got != c.msg {
				t.Fatalf("message %q, want %q", got, c.msg)
			}
		})
	}
	q := finished(job.RunResult{}, nil)
	q.State, q.RunResults = job.StateQueued, nil
	if st, _ := status(t, q); st != StatusInQueue {
		t.Fatalf("queued is %+v", st)
	}
	ce := finished(job.RunResult{}, nil)
	ce.Verdict, ce.RunResults, ce.CompileOutput = job.VerdictCE, nil, "main.cpp:1: error"
	if st, o := status(t, ce); st != StatusCE {
		t.Fatalf("CE is %+v", st)
	} else if v, _ := o.Get("compile_output"); Decode(*v.(*string)) != "main.cpp:1: error" {
		t.Fatalf("compile_output %v", v)
	}
}

func TestRenderFieldsAndBase64(t *testing.T) {
	s := finished(job.RunResult{Status: job.RunOK, Stdout: "\xff\xfe", TimeMS: 16, WallMS: 290, MemoryKB: 3256}, nil)
	ls := testLanguages(t)
	if _, err := Render(s, "tok", ls, DefaultFields, false); !errors.Is(err, ErrNotUTF8) {
		t.Fatalf("non-UTF-8 stdout without base64: %v, want ErrNotUTF8", err)
	}
	o, err := Render(s, "tok", ls, DefaultFields, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(o)
	want := `{"stdout":"//4=\n","time":"0.016","memory":3256,"stderr":null,"token":"tok","compile_output":null,"message":null,"status":{"id":3,"description":"Accepted"}}`
	if string(b) != want {
		t.Fatalf("default fields:\n got %s\nwant %s", b, want)
	}
	f, err := ParseFields("token,status_id , wall_time,language")
	if err != nil {
		t.Fatal(err)
	}
	o, _ = Render(s, "tok", ls, f, true)
	b, _ = json.Marshal(o)
	if !strings.HasPrefix(string(b), `{"status_id":3,"token":"tok","wall_time":"0.29","language":{"id":71,"name":"Python (`) {
		t.Fatalf("selected fields in the serializer's order: %s", b)
	}
	if _, err := ParseFields("token,bogus,nope"); err == nil || err.Error() != "invalid fields: [bogus, nope]" {
		t.Fatalf("unknown fields: %v", err)
	}
	if all, _ := ParseFields("*"); len(all) != len(Fields) {
		t.Fatalf("* is every field")
	}
}
