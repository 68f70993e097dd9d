package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/judge/problem/problemtest"
	"oj/core/testenv"
	"oj/core/wire"
)

// The real binary: migrate, create a token, run `ojd all`, judge a submission through
// the HTTP API in the real sandbox, and stop cleanly on SIGTERM.
func TestOjdAllServesAndStops(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the worker's sandbox needs root")
	}
	dir, bin := buildOjd(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := writeConfig(t, dir, fmt.Sprintf("api:\n  listen: %s\njudge:\n  work_dir: %s/work\n  cache:\n    dir: %s/cache\n", addr, dir, dir))
	ojd := func(args ...string) string {
		out, err := exec.Command(bin, append([]string{"--config", cfg}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("ojd %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := ojd("migrate", "status"); !strings.Contains(out, "applied") {
		t.Fatalf("migrate status: %s", out)
	}
	lines := strings.Split(strings.TrimSpace(ojd("token", "create", "--name", "root", "--role", "admin")), "\n")
	token := lines[len(lines)-1]

	addrFile := filepath.Join(dir, "api.addr")
	cmd := exec.Command(bin, "--config", cfg, "all", "--addr-file", addrFile)
	// An OJ_ variable that names no key is logged, not fatal.
	cmd.Env = append(os.Environ(), "OJ_REDIS_SENTINELS=a:1")
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	c := client.New("http://"+addr, token)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// --addr-file appears once every part is ready: the worker's self-check has passed.
	for {
		if b, err := os.ReadFile(addrFile); err == nil && strings.TrimSpace(string(b)) == addr {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no %s:\n%s", addrFile, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	passed, ready := strings.Index(logs.String(), "worker self-check passed"), strings.Index(logs.String(), `"msg":"ojd ready"`)
	if passed < 0 || ready < passed {
		t.Fatalf("the address was written before the worker's self-check passed, or without \"ojd ready\":\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "environment variable OJ_REDIS_SENTINELS names no configuration key and is ignored") {
		t.Errorf("no warning about OJ_REDIS_SENTINELS at start:\n%s", logs.String())
	}
	for {
		if h, err := c.Readyz(ctx); err == nil && h["postgres"] == "ok" && h["redis"] == "ok" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("never ready:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := c.PutProblem(ctx, "aplusb", bytes.NewReader(problemtest.Zip(problemtest.APlusB(
		"title: A+B\ntime_limit_ms: 1000\nmemory_limit_mb: 128\n")))); err != nil {
		t.Fatal(err)
	}
	wait := int64(10000)
	res, err := c.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3",
		Source: "a, b = map(int, input().split())\nprint(a + b)\n", WaitMS: &wait}, "")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := c.Submission(ctx, res.ID())
	for err == nil && sub.State != "finished" && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
		sub, err = c.Submission(ctx, res.ID())
	}
	if err != nil || sub.Verdict == nil || *sub.Verdict != "AC" {
		t.Fatalf("submission: %+v %v\n%s", sub, err, logs.String())
	}
	stopWithSIGTERM(t, cmd, "ojd all", &logs)
}

// stopWithSIGTERM sends SIGTERM to cmd and fails the test unless it exits 0 within 90 s
// (a bound for a machine loaded by other suites, not a speed target). On a timeout the
// process is killed and reaped here, so that no cleanup's Wait races this one.
func stopWithSIGTERM(t *testing.T, cmd *exec.Cmd, what string, logs *syncBuffer) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s after SIGTERM: %v\n%s", what, err, logs.String())
		}
	case <-time.After(90 * time.Second):
		out := logs.String()
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not stop within 90 s of SIGTERM\n%s", what, out)
	}
}

// buildOjd builds the binary into a fresh directory outside /tmp (the sandbox hides
// /tmp, so a judge work dir there is refused) and returns both.
func buildOjd(t *testing.T) (dir, bin string) {
	t.Helper()
	dir = testenv.VarTmpDir(t, "oj-ojd-test-")
	bin = filepath.Join(dir, "ojd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return dir, bin
}

// writeConfig writes dir/ojd.yaml for the test stack (its own schema, key prefix, object
// store and cgroup parent) followed by extra YAML, and returns its path.
func writeConfig(t *testing.T, dir, extra string) string {
	t.Helper()
	cfg := filepath.Join(dir, "ojd.yaml")
	yaml := fmt.Sprintf(`postgres:
  url: %q
redis:
  addr: %s
  key_prefix: %s
storage:
  fs:
    root: %s/objects
sandbox:
  cgroup_parent: %s
`, testenv.Schema(t, testenv.PostgresURL(t)), testenv.RedisAddr(t), testenv.RandomName("t"), dir,
		testenv.RandomName("oj-ojd-test-"))
	if err := os.WriteFile(cfg, []byte(yaml+extra), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}
