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

	w, err := newWiring(in.firstEnd)
	if err != nil {
		return caseOutcome{}, err
	}
	defer w.close()

	errs, err := newOutputSink(markerScan, tk.runSpec().OutputBytes)
	if err != nil {
		return caseOutcome{}, err
	}
	defer errs.wait()

	var (
		wg               sync.WaitGroup
		solRes, interRes Result
		solErr, interErr error
		interStderr      []byte
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		s := tk.runSpec()
		s.Stdin, s.Stdout, s.Stderr, s.OnStart = w.solIn, w.solOut, errs.w, w.closeSol
		// Its stdout is the interactor's to read (not reading is the interactor's own
		// doing); its stderr is the judge's.
		s.StderrDrained = true
		solRes, solErr = tk.j.runner.Run(ctx, s)
		w.closeSol()
		errs.wait()
	}()
	go func() {
		defer wg.Done()
		// A little longer than the solution's wall limit, so a solution that never
		// answers is the one timed out.
		wall := max(tk.j.cfg.Checker.Wall, tk.wall+tk.j.cfg.WallExtra+tk.j.cfg.WallExtra)
		interRes, _, interStderr, interErr = tk.runTool(ctx, toolRun{box: in.box, tool: in.tool, args: in.args,
			stdin: w.interIn, stdout: w.interOut, wall: wall, keepWrites: in.keepWrites, onStart: w.closeInter})
		w.closeInter()
	}()
	wg.Wait()
	solFirst := w.solEndedFirst()
	if solErr != nil {
		return caseOutcome{}, fmt.Errorf("run: %w", solErr)
	}
	if solRes.Status == StatusSE {
		return caseOutcome{}, sandboxFailure("run: ", solRes)
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
		return tk.firstToEnd(co, in, solVerdict, solMsg, interRes, interStderr, solFirst)
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

// wiring connects a solution and an interactor. Directly, the solution's stdout is the
// interactor's stdin and the reverse (testlib interactors). Relayed (a Kattis
// interaction, decided by who ended first), the worker copies each direction and notes
// when each side's output reaches end of file — the side ended (or hung up) — before it
// closes the other side's input: so the one seen first truly ended first, a causal
// order that two sandbox runs' clocks could not give within milliseconds (a solution
// that crashes makes the validator read end of file and reject a moment later).
type wiring struct {
	solIn, solOut, interIn, interOut *os.File // the runs' ends
	host                             []*os.File
	solOnce, interOnce               sync.Once
	relays                           sync.WaitGroup
	mu                               sync.Mutex
	solEOF, interEOF                 time.Time
}

func newWiring(relayed bool) (*wiring, error) {
	w := &wiring{}
	pipe := func() (*os.File, *os.File, error) {
		r, wr, err := os.Pipe()
		if err == nil {
			w.host = append(w.host, r, wr)
		}
		return r, wr, err
	}
	if !relayed {
		toInter, fromSol, err := pipe() // solution stdout → interactor stdin
		if err != nil {
			return nil, err
		}
		toSol, fromInter, err := pipe() // interactor stdout → solution stdin
		if err != nil {
			w.close()
			return nil, err
		}
		w.solIn, w.solOut, w.interIn, w.interOut = toSol, fromSol, toInter, fromInter
		return w, nil
	}
	var ends [8]*os.File
	for i := 0; i < 4; i++ {
		r, wr, err := pipe()
		if err != nil {
			w.close()
			return nil, err
		}
		ends[2*i], ends[2*i+1] = r, wr
	}
	// solution stdin ← relay ← interactor stdout; solution stdout → relay → interactor stdin.
	solInR, solInW, solOutR, solOutW := ends[0], ends[1], ends[2], ends[3]
	interInR, interInW, interOutR, interOutW := ends[4], ends[5], ends[6], ends[7]
	w.solIn, w.solOut, w.interIn, w.interOut = solInR, solOutW, interInR, interOutW
	w.relays.Add(2)
	go w.relay(solOutR, interInW, &w.solEOF)
	go w.relay(interOutR, solInW, &w.interEOF)
	return w, nil
}

// relay copies from → to; at end of file it notes when and closes to, so the other side
// reads end of file; when to is gone it closes from, so the writer's next write fails.
func (w *wiring) relay(from, to *os.File, eof *time.Time) {
	defer w.relays.Done()
	buf := make([]byte, 64<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			if _, werr := to.Write(buf[:n]); werr != nil {
				from.Close()
				to.Close()
				return
			}
		}
		if err != nil {
			w.mu.Lock()
			*eof = time.Now()
			w.mu.Unlock()
			to.Close()
			from.Close()
			return
		}
	}
}

// closeSol closes the worker's copies of the solution's ends once its run has them.
func (w *wiring) closeSol() { w.solOnce.Do(func() { w.solIn.Close(); w.solOut.Close() }) }

// closeInter closes the worker's copies of the interactor's ends.
func (w *wiring) closeInter() { w.interOnce.Do(func() { w.interIn.Close(); w.interOut.Close() }) }

// solEndedFirst waits for the relays (both runs are over) and reports whether the
// solution's output ended before the interactor's. Direct wiring cannot tell: false.
func (w *wiring) solEndedFirst() bool {
	w.closeSol()
	w.closeInter()
	w.relays.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.solEOF.IsZero():
		return false
	case w.interEOF.IsZero():
		return true
	}
	return w.solEOF.Before(w.interEOF)
}

// close closes every end the worker still holds.
func (w *wiring) close() {
	for _, f := range w.host {
		f.Close()
	}
}
