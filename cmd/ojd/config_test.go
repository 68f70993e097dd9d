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

// A key ojd does not know stops it with the key named and the nearest valid one, the
// same at start as in `ojd config`; free-form maps (worker.concurrency's lanes) take any
// key, which their section's Validate then judges.
func TestConfigUnknownKeys(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // in the error; none: accepted
	}{
		{"unknown key of a section", "redis:\n  sentinels: [a:1]\n",
			[]string{`unknown key "redis.sentinels"`, "valid keys of redis: mode, addr, addrs, master_name"}},
		{"misspelt key", "judge:\n  workdir: /var/lib/oj/w\n",
			[]string{`unknown key "judge.workdir"`, `did you mean "judge.work_dir"?`}},
		{"misspelt section", "judg:\n  work_dir: /var/lib/oj/w\n  cache:\n    dir: /x\n",
			[]string{`unknown key "judg"`, `did you mean "judge"?`}},
		{"misspelt nested key", "judge:\n  cache:\n    budget: 10\n",
			[]string{`unknown key "judge.cache.budget"`, `did you mean "judge.cache.budget_bytes"?`}},
		{"keys below a value", "api:\n  listen:\n    port: 8080\n",
			[]string{`unknown key "api.listen.port"`, "api.listen takes a value"}},
		{"every unknown key at once", "redis:\n  cluster: x\nlog:\n  levle: debug\n",
			[]string{`unknown key "redis.cluster"`, `unknown key "log.levle"`, `did you mean "log.level"?`}},
		{"a lane of worker.concurrency", "worker:\n  concurrency:\n    light: 4\n    rejudge: 0\n", nil},
		{"an unknown lane is Validate's to refuse", "worker:\n  concurrency:\n    lite: 4\n",
			[]string{"worker.concurrency.lite"}},
		{"known keys in any case", "Redis:\n  Addr: 127.0.0.1:6380\n", nil},
		{"the keys of capable and operable workers", "worker:\n  languages: [python3, cpp17]\n  state_poll: 1s\n" +
			"  quarantine_after: 3\n  handback_delay: 500ms\n", nil},
		{"quarantine_after out of range", "worker:\n  quarantine_after: -1\n", []string{"worker.quarantine_after", "0: never"}},
		{"state_poll too short", "worker:\n  state_poll: 10ms\n", []string{"worker.state_poll", "100ms..1m"}},
		{"handback_delay zero", "worker:\n  handback_delay: 0s\n", []string{"worker.handback_delay"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "ojd.yaml")
			if err := os.WriteFile(file, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if out, err := runOjd(t, "--config", file, "config"); err != nil {
					t.Fatalf("ojd config: %v\n%s", err, out)
				}
				return
			}
			// `ojd config` and a daemon's start read the configuration the same way; the
			// daemon stops before it connects anywhere.
			for _, sub := range []string{"config", "worker"} {
				out, err := runOjd(t, "--config", file, sub)
				if err == nil {
					t.Fatalf("ojd %s accepted it:\n%s", sub, out)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("ojd %s: %q lacks %q", sub, err, w)
					}
				}
			}
		})
	}
}

// An OJ_* variable that names no key is a warning (ojd ignores it), with the nearest
// variable that does; the scripts' and tests' own OJ_* variables are not warned about.
func TestConfigUnknownEnvironment(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ojd.yaml")
	if err := os.WriteFile(file, []byte("worker:\n  concurrency:\n    light: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"OJ_REDIS_SENTINELS": "a:1", "OJ_WORKER_LEAS": "40s", "OJ_JUDGE_WORKDIR": "/x",
		"OJ_WORKER_LEASE": "40s", "OJ_WORKER_CONCURRENCY_LIGHT": "3", "OJ_TEST_SOMETHING": "1",
		"OJ_CHILD_PG": "x", "OJ_VM_DIR": "/x", "OJ_VERSION": "1.0", "OJ_STACK_DIR": "/x",
	} {
		t.Setenv(k, v)
	}
	out, err := runOjd(t, "--config", file, "config")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ojd: warning: environment variable OJ_REDIS_SENTINELS names no configuration key and is ignored\n",
		"OJ_WORKER_LEAS names no configuration key and is ignored (did you mean OJ_WORKER_LEASE?)",
		"OJ_JUDGE_WORKDIR names no configuration key and is ignored (did you mean OJ_JUDGE_WORK_DIR?)",
		"lease: 40s", "light: 3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, never := range []string{"OJ_WORKER_LEASE ", "OJ_WORKER_CONCURRENCY_LIGHT", "OJ_TEST_", "OJ_CHILD_", "OJ_VM_", "OJ_VERSION", "OJ_STACK_DIR"} {
		if strings.Contains(out, never) {
			t.Errorf("output warns about %s:\n%s", never, out)
		}
	}
}

// The packaged /etc/oj/ojd.yaml lists every key, so it is read without an unknown one.
func TestPackagedConfigIsKnown(t *testing.T) {
	out, err := runOjd(t, "--config", "../../packaging/ojd.yaml", "config")
	if err != nil {
		t.Fatalf("ojd config on packaging/ojd.yaml: %v\n%s", err, out)
	}
}

// The Redis and PostgreSQL topology keys reach ojd from the file and from OJ_*
// variables (a list as comma-separated addresses), and an unsafe combination fails with
// the key named, as it would at start.
func TestConfigTopology(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ojd.yaml")
	yaml := "redis:\n  mode: sentinel\n  master_name: oj\n  sentinel_password: s3cret\n  tls:\n    enabled: true\n" +
		"postgres:\n  url: postgres://oj@10.0.0.1:5432,10.0.0.2:5432/oj?target_session_attrs=read-write\n  max_conn_lifetime: 10m\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OJ_REDIS_ADDRS", "10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379")
	out, err := runOjd(t, "--config", file, "config")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`mode: "sentinel"`, `addrs: ["10.0.0.1:26379", "10.0.0.2:26379", "10.0.0.3:26379"]`,
		`master_name: "oj"`, `sentinel_password: "***"`, "enabled: true", "max_conn_lifetime: 10m0s"} {
		if !strings.Contains(out, want) {
			t.Errorf("effective config lacks %q:\n%s", want, out)
		}
	}
	for env, key := range map[string]string{
		"OJ_REDIS_ADDR":   "redis.addr: set in sentinel mode",
		"OJ_REDIS_MODE":   "redis.addrs: 3 addresses in standalone mode",
		"OJ_POSTGRES_URL": "postgres.url: names 2 hosts",
	} {
		t.Run(env, func(t *testing.T) {
			value := map[string]string{"OJ_REDIS_ADDR": "10.0.0.9:6379", "OJ_REDIS_MODE": "standalone",
				"OJ_POSTGRES_URL": "postgres://oj@10.0.0.1,10.0.0.2/oj"}[env]
			t.Setenv(env, value)
			if _, err := runOjd(t, "--config", file, "config"); err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("%s=%q: %v, want an error with %q", env, value, err, key)
			}
		})
	}
}
