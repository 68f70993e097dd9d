package judge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"oj/core/job"
	"oj/core/judge/check"
	"oj/sandbox"
)

// interaction is how a problem's interactor is run and read: a testlib interactor, or a
// Kattis validator run interactively.
type interaction struct {
	label string // "interactor" or "validator", in messages
	tool  *tool
	box   string
	// files are linked into box before each case (name in the box → host path of
	// the case's file: "in" and "ans" stand for the case's input and answer).
	files map[string]string
	args  []string
	// keepWrites, and prepare run before each case (a fresh feedback directory).
	keepWrites bool
	prepare    func() error
	// decide reads the tool's end (it ended normally, its exit code, its stderr).
	decide func(ok bool, exitCode int, stderr []byte) check.Result
	// firstEnd decides by who ended first (the Kattis rule): a solution that failed
	// before the validator ended gets its own verdict, a validator that rejected before
	// the solution ended gives WA, whatever the other did after.
	firstEnd bool
}

func (tk *task) testlibInteraction() interaction {
	return interaction{label: "interactor", tool: tk.interactor, box: filepath.Join(tk.dir, "interactor"),
		files: map[string]string{"input.txt": "in", "answer.txt": "ans"},
		args:  []string{"input.txt", "tout.txt", "answer.txt"},
		decide: func(ok bool, code int, stderr []byte) check.Result {
			return check.Testlib(ok, code, nil, stderr)
		}}
}

// runInteractive runs the solution and the interactor on case i, each in its own sandbox
// run, the solution's stdout piped to the interactor's stdin and back. The interactor
// decides by its exit code (in.decide). Rules, in order:
//   - the solution over a limit (TLE, MLE, OLE) → that verdict: a starved interactor
//     says nothing about the solution;
//   - the interactor killed by SIGPIPE → the solution stopped reading: RE if it
//     crashed, else WA;
//   - the interactor crashed, over its limits, or an exit it must not give → SE;
//   - the interactor's verdict (WA, PE, PC) wins over the solution's RE (the solution
//     often dies of the interactor hanging up);
//   - the interactor accepted: RE if the solution failed, else AC.
func (tk *task) runInteractive(ctx context.Context, i int, in interaction) (caseOutcome, error) {
	inPath, ansPath := tk.caseFiles(i)
	files := map[string]string{}
	for name, which := range in.files {
		files[name] = map[string]string{"in": inPath, "ans": ansPath}[which]
	}
	if err := toolBox(in.box, in.tool, files); err != nil {
		return caseOutcome{}, err
	}
	os.Remove(filepath.Join(in.box, "tout.txt"))
	if in.prepare != nil {
		if err := in.prepare(); err != nil {
			return caseOutcome{}, err
		}
	}

	toInter, fromSol, err := os.Pipe() // solution stdout → interactor stdin
	if err != nil {
		return caseOutcome{}, err
	}
	toSol, fromInter, err := os.Pipe() // interactor stdout → solution stdin
	if err != nil {
		toInter.Close()
		fromSol.Close()
		return caseOutcome{}, err
	}
	var solOnce, interOnce sync.Once
	closeSolEnds := func() { solOnce.Do(func() { toSol.Close(); fromSol.Close() }) }
	closeInterEnds := func() { interOnce.Do(func() { toInter.Close(); fromInter.Close() }) }
	defer closeSolEnds()
	defer closeInterEnds()

	errs, err := newOutputSink(markerScan, tk.runSpec().OutputBytes)
	if err != nil {
		return caseOutcome{}, err
	}
	defer errs.wait()

	var (
		wg                   sync.WaitGroup
		solRes, interRes     Result
		solErr, interErr     error
		interStderr          []byte
		solStart, interStart time.Time
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		s := tk.runSpec()
		s.Stdin, s.Stdout, s.Stderr = toSol, fromSol, errs.w
		s.OnStart = func() { solStart = time.Now(); closeSolEnds() }
		solRes, solErr = tk.j.runner.Run(ctx, s)
		closeSolEnds()
		errs.wait()
	}()
	go func() {
		defer wg.Done()
		// A little longer than the solution's wall limit, so a solution that never
		// answers is the one timed out.
		wall := max(tk.j.cfg.Checker.Wall, tk.wall+tk.j.cfg.WallExtra+tk.j.cfg.WallExtra)
		interRes, _, interStderr, interErr = tk.runTool(ctx, toolRun{box: in.box, tool: in.tool, args: in.args,
			stdin: toInter, stdout: fromInter, wall: wall, keepWrites: in.keepWrites,
			onStart: func() { interStart = time.Now(); closeInterEnds() }})
		closeInterEnds()
	}()
	wg.Wait()
	if solErr != nil {
		return caseOutcome{}, fmt.Errorf("run: %w", solErr)
	}
	if solRes.Status == StatusSE {
		return caseOutcome{}, fmt.Errorf("run: sandbox failure: %s", solRes.Error)
	}
	co := caseOutcome{res: job.CaseResult{Index: i, TimeMS: ms(solRes.CPU.Milliseconds()), MemoryKB: int(solRes.MemoryKB)}}
	co.art.Stderr = excerpt(errs.buf, tk.j.cfg.ExcerptBytes)
	set := func(v job.Verdict, points float64, msg string) (caseOutcome, error) {
		co.res.Verdict, co.points, co.res.Message = v, points, clipString(msg, 256)
		return co, nil
	}
	if interErr != nil {
		if errors.Is(interErr, sandbox.ErrWriteBackLimit) {
			// The validator wrote more files or bytes than the judge keeps: its fault.
			co.res.CheckerMessage = clipString(in.label+": "+interErr.Error(), 256)
			return set(job.VerdictSE, 0, in.label+" wrote more than the judge keeps")
		}
		return caseOutcome{}, fmt.Errorf("%s: %w", in.label, interErr)
	}
	co.art.Checker = clipString(string(interStderr), tk.j.cfg.ExcerptBytes)
	solVerdict, solMsg := tk.resourceVerdict(solRes, errs.buf, errs.over)
	if in.firstEnd {
		return tk.firstToEnd(co, in, solVerdict, solMsg, interRes, interStderr,
			solStart.Add(solRes.Wall).Before(interStart.Add(interRes.Wall)))
	}
	switch solVerdict {
	case job.VerdictTLE, job.VerdictMLE, job.VerdictOLE:
		return set(solVerdict, 0, solMsg)
	}
	if interRes.Signal == int(syscall.SIGPIPE) {
		if solVerdict != "" {
			return set(solVerdict, 0, solMsg)
		}
		return set(job.VerdictWA, 0, "the solution stopped reading the "+in.label)
	}
	r := in.decide(toolEndedNormally(interRes), interRes.ExitCode, interStderr)
	co.art.Checker = r.CheckerMessage
	co.res.CheckerMessage = clipString(in.label+": "+r.CheckerMessage, 256) // admins only
	switch r.Verdict {
	case job.VerdictSE:
		return set(job.VerdictSE, 0, in.label+": "+r.Message)
	case job.VerdictAC:
		if solVerdict != "" {
			return set(solVerdict, 0, solMsg)
		}
	}
	if r.HasScore {
		sc := r.Score
		co.score = &sc
	}
	return set(r.Verdict, r.Points, r.Message)
}

// firstToEnd decides a Kattis interaction: the validator's failure is SE; a solution
// that failed before the validator ended keeps its verdict (a crash makes the validator
// read end of file and reject: the crash came first); a rejection before the solution
// ended is WA (a solution that waits forever after a rejection is not TLE); then the
// solution over a limit, the validator's rejection, the solution's failure, AC.
func (tk *task) firstToEnd(co caseOutcome, in interaction, solVerdict job.Verdict, solMsg string, interRes Result, interStderr []byte, solFirst bool) (caseOutcome, error) {
	set := func(v job.Verdict, points float64, msg string) (caseOutcome, error) {
		co.res.Verdict, co.points, co.res.Message = v, points, clipString(msg, 256)
		return co, nil
	}
	if interRes.Signal == int(syscall.SIGPIPE) && solFirst {
		// The validator wrote to a solution that had ended.
		if solVerdict != "" {
			return set(solVerdict, 0, solMsg)
		}
		return set(job.VerdictWA, 0, "the solution stopped reading the "+in.label)
	}
	r := in.decide(toolEndedNormally(interRes), interRes.ExitCode, interStderr)
	co.art.Checker = r.CheckerMessage
	co.res.CheckerMessage = clipString(in.label+": "+r.CheckerMessage, 256) // admins only
	switch {
	case r.Verdict == job.VerdictSE:
		return set(job.VerdictSE, 0, in.label+": "+r.Message)
	case solVerdict != "" && solFirst:
		return set(solVerdict, 0, solMsg)
	case r.Verdict != job.VerdictAC:
		return set(r.Verdict, r.Points, r.Message)
	case solVerdict != "":
		return set(solVerdict, 0, solMsg)
	}
	if r.HasScore {
		sc := r.Score
		co.score = &sc
	}
	return set(r.Verdict, r.Points, r.Message)
}
