package judge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"oj/core/job"
	"oj/core/judge/cache"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
	"oj/core/judge/problem"
)

// task is one Judge call: its directories and limits.
type task struct {
	j    *Judge
	t    job.Task
	lang *lang.Language
	ent  *cache.Entry
	dir  string // on the tasks tmpfs; removed when the task ends

	box   string // the solution's work dir (source, binary); runs' output comes back through pipes (outputSink)
	cpu   time.Duration
	wall  time.Duration
	mem   int64
	memMB int // the limit the language's run command may be told ({memory_mb})

	checker    string // testlib checker binary, if any
	interactor string // interactor binary, if any
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
	if err := os.WriteFile(filepath.Join(tk.box, tk.lang.SourceFile), []byte(tk.t.Source), 0o644); err != nil {
		return job.Outcome{}, arts, err
	}
	tk.cpu = time.Duration(float64(spec.TimeLimit()) * tk.lang.TimeFactor)
	tk.wall = time.Duration(float64(tk.cpu)*tk.j.cfg.WallFactor) + tk.j.cfg.WallExtra
	tk.mem = int64(float64(spec.MemoryLimitBytes()) * tk.lang.MemoryFactor)
	tk.memMB = spec.MemoryLimitMB

	if tk.lang.Compiled() {
		c, err := tk.j.compile(ctx, tk.lang, tk.box)
		if err != nil {
			return job.Outcome{}, arts, err
		}
		arts.CompileLog = c.output
		if !c.ok {
			return job.Outcome{Verdict: job.VerdictCE, CompileOutput: c.output}, arts, nil
		}
	}
	// A checker or interactor that does not compile is a PermanentError: the package is
	// broken, whatever the submission.
	if spec.Checker.Type == problem.CheckerTestlib {
		bin, err := tk.j.buildTool(ctx, tk.ent, tk.dir, "checker", spec.Checker.Source, false)
		if err != nil {
			return job.Outcome{}, arts, err
		}
		tk.checker = bin
	}
	if spec.Interactor != "" {
		bin, err := tk.j.buildTool(ctx, tk.ent, tk.dir, "interactor", spec.Interactor, false)
		if err != nil {
			return job.Outcome{}, arts, err
		}
		tk.interactor = bin
	}

	n := tk.ent.Pkg.CaseCount()
	results := make([]caseOutcome, 0, n)
	failed := 0 // the first case that is not AC, when the problem stops there
	// The cases share one wall budget: a program that sleeps to its wall limit on every
	// case would otherwise hold a slot for cases × (3 × TL + 1 s), a day at the package
	// maximums. A case that starts within the budget runs to its own limits.
	started, outOfTime := time.Now(), 0
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
		case tk.interactor != "":
			co, err = tk.runInteractive(ctx, i)
		default:
			co, err = tk.runCase(ctx, i)
		}
		if err != nil {
			return job.Outcome{}, arts, fmt.Errorf("case %d: %w", i, err)
		}
		if spec.StopOnFirstFailure && failed == 0 && co.res.Verdict != job.VerdictAC {
			failed = i
		}
		co.art.Index, co.art.Verdict = i, string(co.res.Verdict)
		arts.Cases = append(arts.Cases, co.art)
		// The report carries the subtask the final result will give the case (score).
		co.res.Subtask = spec.SubtaskOf(i)
		results = append(results, co)
		job.ReportCase(ctx, co.res)
	}
	out := score(spec, results)
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

// outputSink receives one output stream of a run through a pipe, so that what a
// program writes costs neither disk (as files in the work dir did, slowly whenever the
// disk was busy) nor the run's memory (as files on a tmpfs would: pages are charged to
// the cgroup of the process that writes them, so a flood of output would become MLE
// before OLE, and stay charged to the sandbox slot after the run). The worker reads
// the pipe and keeps the first keep bytes in its own memory — at most the output limit
// per stream of a run in flight. It counts everything; once more than limit bytes have
// come, the output is over the limit (OLE, exact: limit bytes are fine, one more is
// not) and the sink closes its end, so the program's next write fails (EPIPE, or
// SIGPIPE) and the run ends at once instead of writing on until its time runs out.
type outputSink struct {
	w     *os.File // the write end, handed to the run; closed by wait
	r     *os.File
	keep  int
	limit int64
	buf   []byte
	n     int64
	over  bool
	done  chan struct{}
}

// sinkPipeBytes is the pipe buffer a sink asks for (the kernel's default is 64 KiB): a
// program writing its output at full speed then hands the worker large chunks and waits
// for it far less often. The buffer's pages exist only while they hold unread output.
const sinkPipeBytes = 1 << 20

// sinkBufs are the read buffers for what a sink counts but does not keep.
var sinkBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

func newOutputSink(keep int, limit int64) (*outputSink, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	growPipe(w, sinkPipeBytes)
	s := &outputSink{w: w, r: r, keep: keep, limit: limit, done: make(chan struct{})}
	go s.drain()
	return s, nil
}

func (s *outputSink) drain() {
	defer close(s.done)
	defer s.r.Close()
	var scratch []byte
	for {
		var k int
		var err error
		if len(s.buf) < s.keep {
			// Read straight into what is kept, growing it as output comes.
			if len(s.buf) == cap(s.buf) {
				s.buf = slices.Grow(s.buf, min(max(4<<10, 2*cap(s.buf)), s.keep)-len(s.buf))
			}
			k, err = s.r.Read(s.buf[len(s.buf):min(cap(s.buf), s.keep)])
			s.buf = s.buf[:len(s.buf)+k]
		} else {
			if scratch == nil {
				bp := sinkBufs.Get().(*[]byte)
				defer sinkBufs.Put(bp)
				scratch = *bp
			}
			k, err = s.r.Read(scratch)
		}
		s.n += int64(k)
		if s.n > s.limit {
			s.over = true
			return
		}
		if err != nil {
			return
		}
	}
}

// wait closes the worker's copy of the write end and waits for the run's copies to go
// (the sandbox has killed every process of the run when Run returns): then buf, n and
// over are final. It may be called more than once.
func (s *outputSink) wait() {
	s.w.Close()
	<-s.done
}
