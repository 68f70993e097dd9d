package judge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"oj/core/job"
	"oj/core/judge/check"
)

// runInteractive runs the solution and the interactor on case i, each in its own sandbox
// run, the solution's stdout piped to the interactor's stdin and back. The interactor
// gets testlib's arguments (input, its own output file, answer) and decides by its exit
// code. Rules, in order:
//   - the solution over a limit (TLE, MLE, OLE) → that verdict: a starved interactor
//     says nothing about the solution;
//   - the interactor killed by SIGPIPE → the solution stopped reading: RE if it
//     crashed, else WA;
//   - the interactor crashed, over its limits, exit 3 or unknown → SE;
//   - the interactor's verdict (WA, PE, PC) wins over the solution's RE (the solution
//     often dies of the interactor hanging up);
//   - the interactor accepted: RE if the solution failed, else AC.
func (tk *task) runInteractive(ctx context.Context, i int) (caseOutcome, error) {
	inPath, ansPath := tk.caseFiles(i)
	box := filepath.Join(tk.dir, "interactor")
	if _, err := os.Stat(box); err != nil {
		if err := mkdirs(box); err != nil {
			return caseOutcome{}, err
		}
		if err := linkOrCopy(tk.interactor, filepath.Join(box, "interactor")); err != nil {
			return caseOutcome{}, err
		}
	}
	if err := linkOrCopy(inPath, filepath.Join(box, "input.txt")); err != nil {
		return caseOutcome{}, err
	}
	if err := linkOrCopy(ansPath, filepath.Join(box, "answer.txt")); err != nil {
		return caseOutcome{}, err
	}
	os.Remove(filepath.Join(box, "tout.txt"))

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
		wg               sync.WaitGroup
		solRes, interRes Result
		solErr, interErr error
		interStderr      []byte
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		s := tk.runSpec()
		s.Stdin, s.Stdout, s.Stderr, s.OnStart = toSol, fromSol, errs.w, closeSolEnds
		// Its stdout is the interactor's to read (not reading is the interactor's own
		// doing); its stderr is the judge's.
		s.StderrDrained = true
		solRes, solErr = tk.j.runner.Run(ctx, s)
		closeSolEnds()
		errs.wait()
	}()
	go func() {
		defer wg.Done()
		// A little longer than the solution's wall limit, so a solution that never
		// answers is the one timed out.
		wall := max(tk.j.cfg.Checker.Wall, tk.wall+tk.j.cfg.WallExtra+tk.j.cfg.WallExtra)
		interRes, _, interStderr, interErr = tk.runTool(ctx, box,
			[]string{"./interactor", "input.txt", "tout.txt", "answer.txt"}, toInter, fromInter, wall, closeInterEnds)
		closeInterEnds()
	}()
	wg.Wait()
	if solErr != nil {
		return caseOutcome{}, fmt.Errorf("run: %w", solErr)
	}
	if solRes.Status == StatusSE {
		return caseOutcome{}, fmt.Errorf("run: sandbox failure: %s", solRes.Error)
	}
	if interErr != nil {
		return caseOutcome{}, fmt.Errorf("interactor: %w", interErr)
	}

	co := caseOutcome{res: job.CaseResult{Index: i, TimeMS: ms(solRes.CPU.Milliseconds()), MemoryKB: int(solRes.MemoryKB)}}
	co.art.Stderr = excerpt(errs.buf, tk.j.cfg.ExcerptBytes)
	co.art.Checker = clipString(string(interStderr), tk.j.cfg.ExcerptBytes)
	solVerdict, solMsg := tk.resourceVerdict(solRes, errs.buf, errs.over)
	set := func(v job.Verdict, points float64, msg string) (caseOutcome, error) {
		co.res.Verdict, co.points, co.res.Message = v, points, clipString(msg, 256)
		return co, nil
	}
	switch solVerdict {
	case job.VerdictTLE, job.VerdictMLE, job.VerdictOLE:
		return set(solVerdict, 0, solMsg)
	}
	if interRes.Signal == int(syscall.SIGPIPE) {
		if solVerdict != "" {
			return set(solVerdict, 0, solMsg)
		}
		return set(job.VerdictWA, 0, "the solution stopped reading the interactor")
	}
	r := check.Testlib(toolEndedNormally(interRes), interRes.ExitCode, nil, interStderr)
	co.res.CheckerMessage = clipString("interactor: "+r.CheckerMessage, 256) // admins only
	switch r.Verdict {
	case job.VerdictSE:
		return set(job.VerdictSE, 0, "interactor: "+r.Message)
	case job.VerdictAC:
		if solVerdict != "" {
			return set(solVerdict, 0, solMsg)
		}
	}
	return set(r.Verdict, r.Points, r.Message)
}
