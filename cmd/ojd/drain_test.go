package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// ojd all stopped while its worker judges: until the worker finished and ojd ends, the
// API answers 503 with Retry-After in the error shape (/readyz included) instead of
// refusing connections; the judging in flight is finished and ojd exits 0.
func TestOjdAllAnswers503WhileItDrains(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the worker's sandbox needs root")
	}
	dir, bin := buildOjd(t)
	addr := freeAddr(t)
	cfg := writeConfig(t, dir, fmt.Sprintf("api:\n  listen: %s\njudge:\n  work_dir: %s/work\n  cache:\n    dir: %s/cache\n", addr, dir, dir))
	c, cmd, logs := startAll(t, bin, cfg, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A program that sleeps (no CPU time, well within the wall limit) holds the worker.
	res, err := c.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3",
		Source: "import time\ntime.sleep(2)\na, b = map(int, input().split())\nprint(a + b)\n"}, "")
	if err != nil {
		t.Fatal(err)
	}
	for {
		sub, err := c.Submission(ctx, res.ID())
		if err == nil && sub.State == "running" {
			break
		}
		if ctx.Err() != nil || (err == nil && sub.State != "queued") {
			t.Fatalf("never running: %+v %v\n%s", sub, err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var status int
	var header http.Header
	var body []byte
	for status == 0 || status == http.StatusOK {
		select {
		case err := <-exited:
			t.Fatalf("ojd ended (%v) before a request was answered 503 while it drained\n%s", err, logs.String())
		default:
		}
		resp, err := hc.Get("http://" + addr + "/readyz")
		if err != nil {
			t.Fatalf("GET /readyz after SIGTERM, the judging still in flight: %v (the listener must stay open)\n%s", err, logs.String())
		}
		status, header = resp.StatusCode, resp.Header
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	var e wire.Error
	if status != http.StatusServiceUnavailable || header.Get("Retry-After") == "" || json.Unmarshal(body, &e) != nil ||
		e.Error.Code != "unavailable" {
		t.Fatalf("/readyz while draining: %d Retry-After %q %s", status, header.Get("Retry-After"), body)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("ojd all after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("ojd all did not stop within 90 s of SIGTERM\n%s", logs.String())
	}
	// The judging in flight was finished, not given back.
	sub, err := store.GetSubmission(ctx, poolOf(t, cfg), res.ID())
	if err != nil || sub.State != job.StateFinished {
		t.Fatalf("the submission judged during the drain: %+v %v\n%s", sub, err, logs.String())
	}
}

// poolOf connects to the PostgreSQL of the config file at path (writeConfig's).
func poolOf(t *testing.T, path string) *pgxpool.Pool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^  url: "(.*)"$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no postgres url in %s", path)
	}
	pool, err := pgxpool.New(context.Background(), strings.ReplaceAll(string(m[1]), `\"`, `"`))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
