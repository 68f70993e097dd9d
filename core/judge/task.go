package judge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"oj/core/job"
	"oj/core/judge/cache"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
)

// task is one Judge call: its directories and limits.
type task struct {
	j    *Judge
	t    job.Task
	lang *lang.Language
	ent  *cache.Entry
	dir  string // on the tasks tmpfs; removed when the task ends

	box string // the solution's work dir (source, binary); runs' output comes back through pipes (outputSink)
	// src and class are the source's file name in box and the class it runs as
	// (lang.Language.Entry: a Java source's main class).
	src, class string
	cpu        time.Duration
	wall       time.Duration
	mem        int64
	memMB      int // the limit the language's run command may be told ({memory_mb})
	// opts are a run's options (job.RunSpec): nil for a submission's cases.
	opts *job.RunSpec

	checker    *tool // testlib checker, if any
	validator  *tool // Kattis output validator, if any (an interactor with spec.Interactive)
	interactor *tool // testlib interactor, if any
}

// artefacts are what goes to the object store next to the results.
type artefacts struct {
	CompileLog string
	Cases      []objstore.RunCase
}

func (tk *task) judge(ctx context.Context) (job.Outcome, artefacts, error) {
	var arts artefacts
	spec := tk.ent.Pkg.Spec
	tk.box = filepath.Join(tk.dir, "box")
	if err := mkdirs(tk.box); err != nil {
		return job.Outcome{}, arts, err
	}
	tk.src, tk.class = tk.lang.Entry(tk.t.Source)
	if err := os.WriteFile(filepath.Join(tk.box, tk.src), []byte(tk.t.Source), 0o644); err != nil {
		return job.Outcome{}, arts, err
	}
	limit := spec.TimeLimit()
	if tk.t.TimeLimitMS > 0 {
		limit = time.Duration(tk.t.TimeLimitMS) * time.Millisecond
	}
	tk.cpu = time.Duration(float64(limit) * tk.lang.TimeFactor)
	tk.wall = time.Duration(float64(tk.cpu)*tk.j.cfg.WallFactor) + tk.j.cfg.WallExtra
	tk.mem = int64(float64(spec.MemoryLimitBytes()) * tk.lang.MemoryFactor)
	tk.memMB = spec.MemoryLimitMB

	if tk.lang.Compiled() {
		c, err := tk.j.compileWith(ctx, tk.lang, tk.box, compileOpts{lim: tk.j.cfg.Compile, src: tk.src})
		if err != nil {
			return job.Outcome{}, arts, err
		}
		arts.CompileLog = c.output
		if !c.ok {
			return job.Outcome{Verdict: job.VerdictCE, CompileOutput: c.output}, arts, nil
		}
	}
	// A checker, validator or interactor that does not compile is a PermanentError: the
	// package is broken, whatever the submission.
	for _, t := range tools(spec) {
		built, err := tk.j.buildTool(ctx, tk.ent, tk.dir, t[0], t[1], false)
		if err != nil {
			return job.Outcome{}, arts, err
		}
		switch t[0] {
		case "checker":
			tk.checker = built
		case "validator":
			tk.validator = built
		case "interactor":
			tk.interactor = built
		}
	}

	n := tk.ent.Pkg.CaseCount()
	results := make([]caseOutcome, 0, n)
	failed := 0 // the first case that is not AC, when the problem stops there
	// The cases share one wall budget: a program that sleeps to its wall limit on every
	// case would otherwise hold a slot for cases × (3 × TL + 1 s), a day at the package
	// maximums. A case that starts within the budget runs to its own limits.
	started, outOfTime := time.Now(), 0
	var groups *groupTree
	var skips map[int]string // cases not to run, with why (scoring groups that stop)
	judged := map[int]caseOutcome{}
	if spec.Scoring != nil {
		groups, skips = newGroupTree(spec.Scoring), map[int]string{}
	}
	for i := 1; i <= n; i++ {
		var co caseOutcome
		var err error
		if outOfTime == 0 && failed == 0 && tk.j.cfg.SubmissionWall > 0 && time.Since(started) > tk.j.cfg.SubmissionWall {
			outOfTime = i
		}
		switch {
		case outOfTime != 0:
			co = overBudget(i, tk.j.cfg.SubmissionWall)
		case failed != 0:
			co = skipped(i, failed)
		case skips[i] != "":
			co = caseOutcome{res: job.CaseResult{Index: i, Verdict: job.VerdictSK, Message: skips[i]}}
		case tk.interactor != nil:
			co, err = tk.runInteractive(ctx, i, tk.testlibInteraction())
		case tk.validator != nil && spec.Interactive:
			co, err = tk.runInteractive(ctx, i, tk.kattisInteraction())
		default:
			co, err = tk.runCase(ctx, i)
		}
		if err != nil {
			return job.Outcome{}, arts, fmt.Errorf("case %d: %w", i, err)
		}
		if spec.StopOnFirstFailure && failed == 0 && co.res.Verdict != job.VerdictAC {
			failed = i
		}
		judged[i] = co
		if groups != nil {
			for c, why := range groups.finished(i, judged) {
				if c > i && skips[c] == "" {
					skips[c] = why
				}
			}
		}
		co.art.Index, co.art.Verdict = i, string(co.res.Verdict)
		arts.Cases = append(arts.Cases, co.art)
		// The report carries the subtask the final result will give the case (score).
		co.res.Subtask = spec.SubtaskOf(i)
		results = append(results, co)
		job.ReportCase(ctx, co.res)
	}
	var out job.Outcome
	if spec.Scoring != nil {
		out = scoreGroups(spec, results)
	} else {
		out = score(spec, results)
	}
	out = bounded(out)
	if outOfTime != 0 && (out.Verdict == job.VerdictAC || out.Verdict == job.VerdictPC) {
		// Not every case was judged: the submission did not pass in the time it had.
		out.Verdict = job.VerdictTLE
	}
	out.CompileOutput = arts.CompileLog
	return out, arts, nil
}

// overBudget is case i not run because the submission's cases used up their wall
// budget (judge.submission_wall): it earns nothing and says so.
func overBudget(i int, budget time.Duration) caseOutcome {
	return caseOutcome{res: job.CaseResult{Index: i, Verdict: job.VerdictSK,
		Message: fmt.Sprintf("not run: the submission's cases used up their time budget (judge.submission_wall, %v)", budget)}}
}

// skipped is case i not run, because case failed was not AC and the problem stops on
// the first failure (ICPC style): it earns nothing and says which case stopped it.
func skipped(i, failed int) caseOutcome {
	return caseOutcome{res: job.CaseResult{Index: i, Verdict: job.VerdictSK,
		Message: fmt.Sprintf("skipped after case %d failed", failed)}}
}

func mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
		// Runs see it read-only under a writable layer of their own (sandbox.Spec.Dir),
		// so the mode only matters to what a compile copies back; the task dir's parent
		// is private to the worker.
		if err := os.Chmod(d, 0o777); err != nil {
			return err
		}
	}
	return nil
}

// baseEnv is every sandboxed program's environment before the language's additions.
var baseEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "HOME=/tmp", "TMPDIR=/tmp"}

// mergeEnv returns base with extra's variables replacing or extending it (execve would
// otherwise see duplicates, and getenv takes the first).
func mergeEnv(base []string, extra ...[]string) []string {
	out := append([]string(nil), base...)
	for _, ex := range extra {
		for _, kv := range ex {
			k, _, _ := strings.Cut(kv, "=")
			replaced := false
			for i, o := range out {
				if ok, _, _ := strings.Cut(o, "="); ok == k {
					out[i], replaced = kv, true
				}
			}
			if !replaced {
				out = append(out, kv)
			}
		}
	}
	return out
}

func clipString(s string, n int) string {
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
