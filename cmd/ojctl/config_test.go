package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const twoContexts = `current-context: local
contexts:
  local: {server: "http://local:8080", token: "tok-local"}
  prod:  {server: "https://prod.example", token: "tok-prod"}
`

// Precedence: --server/--token > an explicit --context > OJCTL_SERVER/OJCTL_TOKEN > the
// current-context > the default server.
func TestServerAndTokenPrecedence(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, ".config", "ojctl", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OJCTL_SERVER": "http://env:1", "OJCTL_TOKEN": "tok-env"}
	for _, tc := range []struct {
		name         string
		home         string
		env          map[string]string
		flagServer   string
		flagToken    string
		flagContext  string
		server, tok  string
		wantErrorSub string
	}{
		{name: "current context", home: home, server: "http://local:8080", tok: "tok-local"},
		{name: "env beats the current context", home: home, env: env, server: "http://env:1", tok: "tok-env"},
		{name: "explicit context beats env", home: home, env: env, flagContext: "PROD", server: "https://prod.example", tok: "tok-prod"},
		{name: "flags beat everything", home: home, env: env, flagContext: "prod", flagServer: "http://flag:2/", flagToken: "tok-flag",
			server: "http://flag:2", tok: "tok-flag"},
		{name: "no config, no env", home: t.TempDir(), server: defaultServer, tok: ""},
		{name: "unknown context", home: home, flagContext: "staging", wantErrorSub: "known: local, prod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"HOME": tc.home}
			for k, v := range tc.env {
				vars[k] = v
			}
			a := &app{getenv: func(k string) string { return vars[k] }, server: tc.flagServer, token: tc.flagToken, contextName: tc.flagContext}
			server, tok, err := a.resolve()
			if tc.wantErrorSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrorSub) {
					t.Fatalf("err = %v, want one naming %q", err, tc.wantErrorSub)
				}
				return
			}
			if err != nil || server != tc.server || tok != tc.tok {
				t.Fatalf("resolve = %q %q %v, want %q %q", server, tok, err, tc.server, tc.tok)
			}
		})
	}
}

// config set-context / use-context / get-contexts write and read the file (mode 0600).
func TestConfigCommandsManageContexts(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	vars := map[string]string{"HOME": home}
	do := func(args ...string) result { return ojctlWith(t, vars, run{args: args}) }

	wantCode(t, do("config", "set-context", "local", "--server", "http://127.0.0.1:8080", "--token", "t1"), 0)
	wantCode(t, do("config", "set-context", "prod", "--server", "https://prod.example", "--token", "t2"), 0)
	r := do("config", "current-context")
	wantCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != "local" {
		t.Fatalf("the first context should become current:\n%s", r)
	}
	wantCode(t, do("config", "use-context", "prod"), 0)
	wantCode(t, do("config", "use-context", "nope"), 2)
	r = do("config", "get-contexts")
	wantCode(t, r, 0)
	wantIn(t, "get-contexts", r.stdout, "https://prod.example", "local")
	current := ""
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "*" {
			current = f[1]
		}
	}
	if current != "prod" {
		t.Fatalf("get-contexts marks %q current, want prod:\n%s", current, r)
	}
	if strings.Contains(r.stdout, "t2") {
		t.Fatalf("get-contexts shows a token:\n%s", r)
	}
	path := filepath.Join(home, ".config", "ojctl", "config.yaml")
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("config file %v %v, want mode 0600", info, err)
	}
	a := &app{getenv: func(k string) string { return vars[k] }}
	if server, tok, err := a.resolve(); err != nil || server != "https://prod.example" || tok != "t2" {
		t.Fatalf("after use-context prod: %q %q %v", server, tok, err)
	}
}
