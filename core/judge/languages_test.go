package judge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"oj/core/job"
	"oj/core/judge/problem/problemtest"
)

// languageCases are the programs every language brings under
// testdata/languages/<id>/<case>.<ext>, with the verdict each must get (the case's name
// fixes it; see docs/languages.md).
var languageCases = map[string]job.Verdict{
	"ab":      job.VerdictAC,  // reads "a b" (64-bit), prints a+b
	"wa":      job.VerdictWA,  // prints a+b+1
	"tle":     job.VerdictTLE, // reads, then loops forever on the CPU
	"re":      job.VerdictRE,  // reads, then fails (exception, abort, non-zero exit)
	"ce":      job.VerdictCE,  // does not compile (languages with a compile step)
	"mle":     job.VerdictMLE, // allocates and touches 1 GiB, then prints a+b
	"mem100":  job.VerdictAC,  // keeps ~100 MiB live under the 256 MiB limit, prints a+b
	"threads": job.VerdictAC,  // 4 threads each sum a part, joined (Python: one deep-recursion thread); prints a+b
}

// everyLanguageProblem is the harness's problem: timeMS and 256 MiB (each times the
// language's factors), one case whose sum needs 64 bits.
func everyLanguageProblem(timeMS int) map[string]string {
	return problemtest.Cases(map[string]string{
		"problem.yaml": fmt.Sprintf("title: A+B in every language\ntime_limit_ms: %d\nmemory_limit_mb: 256\nchecker: {type: lines}\n", timeMS),
	}, [2]string{"1000000000000000000 999999999999999999\n", "1999999999999999999\n"})
}

// TestEveryLanguage judges, on the real sandbox, each language's programs in
// testdata/languages/<id>/ against the verdict their case name fixes. A directory whose
// language is not configured, or whose toolchain this host lacks, is skipped with the
// reason.
func TestEveryLanguage(t *testing.T) {
	needSandbox(t)
	dirs, err := os.ReadDir(filepath.Join("testdata", "languages"))
	if err != nil {
		t.Fatal(err)
	}
	// 2 s for every case but mle, which tests memory: 10 s, so that a runtime slow to
	// build its 1 GiB (bash: ~1.5 s of CPU to pass 256 MiB, 2 s on a loaded host) reaches
	// the memory limit before the time limit.
	sha, mleSHA := putProblem(t, everyLanguageProblem(2000)), putProblem(t, everyLanguageProblem(10000))
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		id := d.Name()
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			l, ok := testJudge.Languages().Get(id)
			if !ok {
				t.Skipf("%s is not a language of the judge's languages file", id)
			}
			if !testJudge.Supports(id) {
				t.Skipf("toolchain missing on this host: %s", missingOf(id))
			}
			// The self-check (testMain) ran the version command in the sandbox.
			if name := testJudge.Names()[id]; len(l.Version) > 0 && name == l.DisplayName("") {
				t.Errorf("%s: name %q without the detected version", id, name)
			} else {
				t.Logf("%s: %s", id, name)
			}
			files, err := os.ReadDir(filepath.Join("testdata", "languages", id))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				name := f.Name()
				c := strings.TrimSuffix(name, filepath.Ext(name))
				want, known := languageCases[c]
				if !known {
					t.Errorf("%s: unknown case %q (known: ab wa tle re ce mle mem100 threads)", id, name)
					continue
				}
				if c == "ce" && !l.Compiled() {
					t.Errorf("%s: a ce case for a language without a compile step", id)
					continue
				}
				t.Run(c, func(t *testing.T) {
					src := readSource(t, filepath.Join("languages", id, name))
					problem := sha
					if c == "mle" {
						problem = mleSHA
					}
					out := judgeWith(t, testJudge, problem, id, src)
					if out.Verdict != want {
						t.Fatalf("verdict %s, want %s; cases %+v; compile output %q", out.Verdict, want, out.Cases, out.CompileOutput)
					}
					switch want {
					case job.VerdictAC:
						if out.Score != 100 || len(out.Cases) != 1 {
							t.Fatalf("AC with score %v, %d cases", out.Score, len(out.Cases))
						}
						t.Logf("%s/%s: %d ms, %d KiB", id, c, out.TimeMS, out.MemoryKB)
						// A contestant reads the compile output: what the toolchain's
						// runtime says of itself (a JVM's deprecation warnings) is noise.
						if strings.Contains(out.CompileOutput, "VM warning") {
							t.Errorf("compile output carries the runtime's own warning: %q", out.CompileOutput)
						}
					case job.VerdictCE:
						if strings.TrimSpace(out.CompileOutput) == "" || len(out.Cases) != 0 {
							t.Fatalf("CE without the compiler's message (%q) or with cases", out.CompileOutput)
						}
					default:
						if out.Score != 0 || len(out.Cases) != 1 || out.Cases[0].Verdict != want {
							t.Fatalf("%s with score %v, cases %+v", want, out.Score, out.Cases)
						}
					}
				})
			}
		})
	}
}

// missingOf says why this host cannot run language id.
func missingOf(id string) string {
	var why []string
	for _, m := range testJudge.Unavailable() {
		if m.Language == id {
			why = append(why, m.String())
		}
	}
	return strings.Join(why, "; ")
}
