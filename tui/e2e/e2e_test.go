package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/testenv"
	"oj/core/wire"
)

// TestDashboardReplaysADeadLetter runs the whole system (ojd all on a fresh database),
// kills a submission by hiding its problem package from the object store, then in the
// real dashboard in tmux: goes to the DLQ view with ":dlq", opens the trace, restores the
// package, replays with "e" + "y", and finds the submission judged AC in the Submissions
// view's trace. Needs root (the sandbox), tmux, and the test PostgreSQL and Redis.
func TestDashboardReplaysADeadLetter(t *testing.T) {
	pgURL, redisAddr := os.Getenv("OJ_TEST_POSTGRES_URL"), os.Getenv("OJ_TEST_REDIS_ADDR")
	switch {
	case testing.Short():
		t.Skip("end to end")
	case pgURL == "" || redisAddr == "":
		t.Skip("OJ_TEST_POSTGRES_URL and OJ_TEST_REDIS_ADDR not set (make test sets them)")
	case os.Geteuid() != 0:
		t.Skip("the worker's sandbox needs root")
	}
	for _, tool := range []string{"tmux", "psql"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root := repoRoot(t)
	dir := testenv.VarTmpDir(t, "oj-dash-e2e-")

	// Build the real binaries.
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/ojd", "./cmd/ojctl")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ojd, ojctl := filepath.Join(bin, "ojd"), filepath.Join(bin, "ojctl")

	// A fresh database for this run.
	suffix := randHex(4)
	dbName := "oj_dash_e2e_" + suffix
	psql(t, pgURL, "CREATE DATABASE "+dbName)
	t.Cleanup(func() { psql(t, pgURL, "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)") })
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + dbName

	addr := freeAddr(t)
	objects := filepath.Join(dir, "objects")
	cfg := filepath.Join(dir, "ojd.yaml")
	yaml := fmt.Sprintf(`postgres:
  url: %q
redis:
  addr: %s
  key_prefix: dash%s
api:
  listen: %s
storage:
  fs:
    root: %s
judge:
  work_dir: %s/work
  cache:
    dir: %s/cache
worker:
  retry_base: 200ms
  retry_max: 500ms
  read_block: 200ms
sandbox:
  cgroup_parent: oj-dash-e2e-%s
log:
  level: warn
`, u.String(), redisAddr, suffix, addr, objects, dir, dir, suffix)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		out, err := exec.Command(ojd, append([]string{"--config", cfg}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("ojd %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("migrate", "up")
	lines := strings.Split(strings.TrimSpace(run("token", "create", "--name", "dash-e2e", "--role", "admin")), "\n")
	token := lines[len(lines)-1]

	var logs bytes.Buffer
	daemon := exec.Command(ojd, "--config", cfg, "all")
	daemon.Stdout, daemon.Stderr = &logs, &logs
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() { daemon.Wait(); close(stopped) }()
	t.Cleanup(func() {
		daemon.Process.Signal(os.Interrupt)
		select {
		case <-stopped:
		case <-time.After(30 * time.Second):
			daemon.Process.Kill()
			<-stopped
		}
	})

	server := "http://" + addr
	c := client.New(server, token)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	for {
		if h, err := c.Readyz(ctx); err == nil && h["postgres"] == "ok" && h["redis"] == "ok" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("ojd never ready:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	// A problem whose package the worker cannot fetch: push it, then hide the objects.
	if _, err := c.PutProblem(ctx, "aplusb", bytes.NewReader(aplusbZip(t))); err != nil {
		t.Fatal(err)
	}
	hidden := objects + ".hidden"
	if err := os.Rename(objects, hidden); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(objects, 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := c.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3",
		Source: "a, b = map(int, input().split())\nprint(a + b)\n"}, "")
	if err != nil {
		t.Fatal(err)
	}
	id := res.ID()
	for {
		s, err := c.Submission(ctx, id)
		if err == nil && s.State == "dead" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("submission %s never died (last %+v, %v):\n%s", id, s, err, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The real dashboard in tmux, on a private tmux server.
	sock := "oj-dash-e2e-" + suffix
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	tm := &tmux{t: t, sock: sock}
	tm.run("new-session", "-d", "-x", "160", "-y", "48", "-s", "dash",
		"-e", "HOME="+home, "-e", "OJCTL_SERVER="+server, "-e", "OJCTL_TOKEN="+token, "-e", "TERM=xterm-256color",
		ojctl+" dash --refresh 1s; echo DASH-EXITED $?; sleep 60")
	t.Cleanup(func() { exec.Command("tmux", "-L", sock, "kill-server").Run() })
	short := id[:8]

	t.Logf("overview screen:\n%s", tm.waitFor("the dashboard", "● live", "dead letters"))
	tm.keys(":", "dlq", "Enter")
	t.Logf("DLQ screen:\n%s", tm.waitFor("the dead letter in the DLQ view", short))
	tm.keys("Enter")
	tm.waitFor("the trace with the dead-lettering", "Attempts", "dead")
	tm.keys("Escape")

	// Put the package back so the replay is judged, then replay.
	os.RemoveAll(objects)
	if err := os.Rename(hidden, objects); err != nil {
		t.Fatal(err)
	}
	tm.keys("e")
	t.Logf("confirm screen:\n%s", tm.waitFor("the confirm dialog with the dry-run count", "dry run: 1", "Proceed? [y/N]"))
	tm.keys("y")
	tm.waitFor("the replay's result", "replayed 1 of 1")

	// The replayed submission shows up in the Submissions view (from the audit log); its
	// trace says it was replayed and judged.
	tm.keys(":", "submissions", "Enter")
	tm.waitFor("the replayed submission in the Submissions view", short)
	deadline := time.Now().Add(90 * time.Second)
	for {
		tm.keys("/", short, "Enter", "Enter")
		screen := tm.waitFor("its trace", "History")
		if strings.Contains(screen, "state      finished") && strings.Contains(screen, "verdict AC") && strings.Contains(screen, "replay") {
			t.Logf("final screen:\n%s", screen)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the trace never showed the submission judged after the replay:\n%s\n%s", screen, logs.String())
		}
		tm.keys("Escape", "Escape")
		time.Sleep(time.Second)
	}
	// The Problems view lists the problem with its format, limits and verify status; a
	// verify of a package without labeled submissions is refused at its dry run, with the
	// server's reason.
	tm.keys("Escape", "Escape", ":", "problems", "Enter")
	t.Logf("problems screen:\n%s", tm.waitFor("the problem in the Problems view", "aplusb", "oj", "not verified"))
	tm.keys("v")
	tm.waitFor("the verify refused with its reason", "no labeled submissions")
	if rss := tm.dashRSS(); rss != "" {
		t.Logf("ojctl dashboard memory: %s", rss)
	}
	tm.keys("Escape", "q")
	tm.waitFor("the dashboard to exit", "DASH-EXITED 0")
}

type tmux struct {
	t    *testing.T
	sock string
}

func (x *tmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.sock}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends each argument: a tmux key name (Enter, Escape) or literal text.
func (x *tmux) keys(ks ...string) {
	x.t.Helper()
	for _, k := range ks {
		switch k {
		case "Enter", "Escape", "Tab":
			x.run("send-keys", "-t", "dash", k)
		default:
			x.run("send-keys", "-t", "dash", "-l", k)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// dashRSS is the dashboard process's peak and current resident memory, from /proc.
func (x *tmux) dashRSS() string {
	pane := strings.TrimSpace(x.run("list-panes", "-t", "dash", "-F", "#{pane_pid}"))
	out, err := exec.Command("pgrep", "-P", pane, "-x", "ojctl").Output()
	if err != nil {
		return ""
	}
	status, err := os.ReadFile("/proc/" + strings.TrimSpace(string(out)) + "/status")
	if err != nil {
		return ""
	}
	var parts []string
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM") || strings.HasPrefix(l, "VmRSS") {
			parts = append(parts, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(parts, ", ")
}

func (x *tmux) capture() string { return x.run("capture-pane", "-p", "-t", "dash") }

// waitFor polls the screen until it holds every string, and returns it.
func (x *tmux) waitFor(what string, all ...string) string {
	x.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := x.capture()
		ok := true
		for _, w := range all {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("waiting for %s (%q), the screen is:\n%s", what, all, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func psql(t *testing.T, pgURL, sql string) {
	t.Helper()
	out, err := exec.Command("psql", pgURL, "-v", "ON_ERROR_STOP=1", "-qc", sql).CombinedOutput()
	if err != nil {
		t.Fatalf("psql %s: %v\n%s", sql, err, out)
	}
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func repoRoot(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
