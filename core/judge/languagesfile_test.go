package judge

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"oj/core/job"
)

// A deployer's language, defined in their own judge.languages_file on a toolchain the
// defaults do not know (here POSIX sh, with a syntax check as its compile step), is
// detected by the self-check and judged in the real sandbox like any other
// (docs/languages.md, "Adding a language").
func TestLanguagesFileAddsALanguage(t *testing.T) {
	needSandbox(t)
	file := filepath.Join(testRoot, "deployer-languages.yaml")
	if err := os.WriteFile(file, []byte(`languages:
  - id: sh
    name: POSIX sh ({version})
    source_file: main.sh
    version: [/bin/sh, -c, 'echo "dash 0.5"']
    version_regexp: 'dash (\S+)'
    compile: [/bin/sh, -n, "{src}"]
    run: [/bin/sh, "{src}"]
    run_env: ["LIMIT_MB={memory_mb}"]
    lane: light
    time_factor: 1
    memory_factor: 1
    processes: 1
`), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := newTestJudgeWith(testStore, "deployer", func(c *Config) { c.LanguagesFile = file })
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if gone := j.DetectVersions(ctx); len(gone) != 0 || !j.Supports("sh") {
		t.Fatalf("self-check: %v", gone)
	}
	if got := j.Names()["sh"]; got != "POSIX sh (0.5)" {
		t.Fatalf("name %q, want the detected version in it", got)
	}
	if j.Supports("cpp17") {
		t.Fatal("a languages file replaces the defaults: cpp17 is not configured")
	}
	sha := putProblem(t, everyLanguageProblem(2000))
	for src, want := range map[string]job.Verdict{
		// The run command sees its own environment and the problem's limit.
		"read a b\n[ \"$LIMIT_MB\" = 256 ] || exit 7\necho $((a + b))\n": job.VerdictAC,
		"read a b\necho $((a + b + 1))\n":                                job.VerdictWA,
		"read a b\nwhile :; do :; done\n":                                job.VerdictTLE,
		"read a b\nif then\n":                                            job.VerdictCE,
	} {
		if out := judgeWith(t, j, sha, "sh", src); out.Verdict != want {
			t.Errorf("%q: verdict %s, want %s; %+v %q", src, out.Verdict, want, out.Cases, out.CompileOutput)
		}
	}
}
