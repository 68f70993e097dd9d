package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runOjd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// Configuration precedence: defaults < file < OJ_* environment < flags; bad values name
// their key; secrets are never printed.
func TestConfigLayers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ojd.yaml")
	if err := os.WriteFile(file, []byte("api:\n  listen: 127.0.0.1:1111\nworker:\n  lease: 40s\n  concurrency:\n    light: 5\nredis:\n  password: hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OJ_WORKER_LEASE", "50s")
	out, err := runOjd(t, "--config", file, "config")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`listen: "127.0.0.1:1111"`, "lease: 50s", "light: 5", "heavy: 2", `password: "***"`} {
		if !strings.Contains(out, want) {
			t.Errorf("effective config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Error("a secret was printed")
	}
	t.Setenv("OJ_WORKER_LEASE", "10ms")
	if _, err := runOjd(t, "--config", file, "config"); err == nil || !strings.Contains(err.Error(), "worker.lease") {
		t.Errorf("a bad lease: %v, want an error naming worker.lease", err)
	}
	if _, err := runOjd(t, "--config", filepath.Join(t.TempDir(), "missing.yaml"), "config"); err == nil {
		t.Error("an explicit --config that does not exist was accepted")
	}
}
