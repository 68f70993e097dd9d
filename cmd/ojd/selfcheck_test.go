package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A worker whose host cannot judge stops at start, naming the key to change, instead of
// claiming submissions and ending each one as SE; one that lacks only some languages
// judges the others; a sound one says its self-check passed.
func TestWorkerSelfCheck(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the worker's sandbox needs root")
	}
	dir, bin := buildOjd(t)
	missing := filepath.Join(dir, "languages.yaml")
	if err := os.WriteFile(missing, []byte(`languages:
  - id: c99x
    name: C with a compiler this host lacks
    source_file: main.c
    compile: [/usr/bin/no-such-cc, -o, main, "{src}"]
    run: [./main]
    lane: heavy
    time_factor: 1
    memory_factor: 1
    processes: 1
`), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpWork, err := os.MkdirTemp("", "oj-work-under-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmpWork) })
	judgeAt := func(work, extra string) string {
		return fmt.Sprintf("judge:\n  work_dir: %s\n  cache:\n    dir: %s/cache\n%s", work, dir, extra)
	}
	tests := []struct {
		name  string
		judge string
		want  []string
	}{
		{"work dir under /tmp", judgeAt(tmpWork, ""), []string{"judge.work_dir", tmpWork, "inside /tmp"}},
		{"toolchain missing", judgeAt(dir+"/work", "  languages_file: "+missing+"\n"),
			[]string{"judge.languages_file", "c99x", "/usr/bin/no-such-cc"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, dir, tc.judge)
			// ojd all runs the same worker: it stops before it says it is ready (what
			// make run waits for), with the reason as its last line.
			addrFile := filepath.Join(dir, "api.addr")
			for _, args := range [][]string{{"worker"}, {"all", "--listen", "127.0.0.1:0", "--addr-file", addrFile}} {
				cmd := exec.Command(bin, append([]string{"--config", cfg}, args...)...)
				var logs bytes.Buffer
				cmd.Stdout, cmd.Stderr = &logs, &logs
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					if err == nil {
						t.Fatalf("ojd %s exited 0; want a start-up failure\n%s", args[0], logs.String())
					}
				case <-time.After(60 * time.Second):
					_ = cmd.Process.Kill()
					<-done // reaped: its output is complete, and no other Wait races this one
					t.Fatalf("ojd %s still running after 60 s; want a start-up failure\n%s", args[0], logs.String())
				}
				lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
				last := lines[len(lines)-1]
				for _, w := range tc.want {
					if !strings.Contains(last, w) {
						t.Errorf("ojd %s: the last line does not name %q:\n%s", args[0], w, logs.String())
					}
				}
				if strings.Contains(logs.String(), "ojd ready") {
					t.Errorf("ojd %s said it was ready:\n%s", args[0], logs.String())
				}
				if _, err := os.Stat(addrFile); !os.IsNotExist(err) {
					t.Errorf("%s exists after a failed start: %v", addrFile, err)
				}
			}
		})
	}
	// A host that lacks one language's toolchain starts all the same and judges the
	// others: it says which it lacks, and announces only what passed.
	t.Run("one toolchain missing", func(t *testing.T) {
		partial := filepath.Join(dir, "partial.yaml")
		if err := os.WriteFile(partial, []byte(`languages:
  - id: c99x
    name: C with a compiler this host lacks
    source_file: main.c
    compile: [/usr/bin/no-such-cc, -o, main, "{src}"]
    run: [./main]
    lane: heavy
    time_factor: 1
    memory_factor: 1
    processes: 1
  - id: sh
    name: POSIX shell
    source_file: main.sh
    run: [/bin/sh, main.sh]
    lane: light
    time_factor: 1
    memory_factor: 1
    processes: 1
`), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := writeConfig(t, dir, judgeAt(dir+"/work", "  languages_file: "+partial+"\n"))
		cmd := exec.Command(bin, "--config", cfg, "worker")
		var logs syncBuffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(logs.String(), "worker starting") {
			if time.Now().After(deadline) {
				t.Fatalf("no start line within 60 s:\n%s", logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		out := logs.String()
		for _, want := range []string{"cannot run some configured languages", "/usr/bin/no-such-cc", `"languages":["sh"]`} {
			if !strings.Contains(out, want) {
				t.Errorf("the log does not say %q:\n%s", want, out)
			}
		}
		stopWithSIGTERM(t, cmd, "worker", &logs)
	})
	t.Run("sound host", func(t *testing.T) {
		cfg := writeConfig(t, dir, judgeAt(dir+"/work", ""))
		cmd := exec.Command(bin, "--config", cfg, "worker")
		var logs syncBuffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(logs.String(), "worker self-check passed") {
			if time.Now().After(deadline) {
				t.Fatalf("no self-check line within 60 s:\n%s", logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		// A worker that stops on SIGTERM unmounts its tasks tmpfs; one killed leaves it.
		stopWithSIGTERM(t, cmd, "worker", &logs)
		if tasks := filepath.Join(dir, "work", "tasks"); isMountPoint(t, tasks) {
			t.Fatalf("%s is still mounted after the worker stopped", tasks)
		}
	})
}

// syncBuffer is a bytes.Buffer that a child process's output can be copied into while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// isMountPoint reports whether p is on another file system than its parent.
func isMountPoint(t *testing.T, p string) bool {
	t.Helper()
	var st, parent unix.Stat_t
	if unix.Stat(p, &st) != nil || unix.Stat(filepath.Dir(p), &parent) != nil {
		return false
	}
	return st.Dev != parent.Dev
}
