package main

import (
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ojd api on a busy port exits non-zero at once, naming the address and what to do,
// without ever logging "api listening"; ojd all does too, before its other parts start.
func TestOjdBusyPortFailsAtStart(t *testing.T) {
	dir, bin := buildOjd(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	cfg := writeConfig(t, dir, "judge:\n  work_dir: "+dir+"/work\n")
	for _, sub := range []string{"api", "all"} {
		out, err := exec.Command(bin, "--config", cfg, sub, "--listen", addr).CombinedOutput()
		var ee *exec.ExitError
		if err == nil || !errors.As(err, &ee) || ee.ExitCode() == 0 {
			t.Fatalf("ojd %s on a busy port: %v (want a non-zero exit)\n%s", sub, err, out)
		}
		for _, want := range []string{"listen " + addr + ": address already in use", "another ojd", "api.listen"} {
			if !strings.Contains(string(out), want) {
				t.Fatalf("ojd %s: output lacks %q:\n%s", sub, want, out)
			}
		}
		for _, never := range []string{"api listening", "worker starting"} {
			if strings.Contains(string(out), never) {
				t.Fatalf("ojd %s logged %q before failing:\n%s", sub, never, out)
			}
		}
	}
}

// With port 0, --addr-file receives the address actually bound, the log names the same
// address, the API answers there, and the file is removed at exit.
func TestOjdPortZeroWritesTheBoundAddress(t *testing.T) {
	dir, bin := buildOjd(t)
	cfg := writeConfig(t, dir, "judge:\n  work_dir: "+dir+"/work\n")
	addrFile := filepath.Join(dir, "api.addr")
	cmd := exec.Command(bin, "--config", cfg, "api", "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	deadline := time.Now().Add(60 * time.Second)
	var addr string
	for addr == "" {
		if b, err := os.ReadFile(addrFile); err == nil {
			addr = strings.TrimSpace(string(b))
		} else if time.Now().After(deadline) {
			t.Fatalf("no %s within 60 s:\n%s", addrFile, logs.String())
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" || port == "0" {
		t.Fatalf("--addr-file holds %q: want 127.0.0.1 and the port bound", addr)
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz on %s: %v\n%s", addr, err, logs.String())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %d", resp.StatusCode)
	}
	for !strings.Contains(logs.String(), `"msg":"api listening","component":"api","addr":"`+addr+`"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the log does not name %s as listening:\n%s", addr, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopWithSIGTERM(t, cmd, "ojd api", &logs)
	if _, err := os.Stat(addrFile); !os.IsNotExist(err) {
		t.Fatalf("%s is still there after exit: %v", addrFile, err)
	}
}
