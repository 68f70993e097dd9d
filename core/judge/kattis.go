package judge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"oj/core/job"
	"oj/core/judge/check"
	"oj/sandbox"
)

// A Kattis output validator runs as `validator input answer feedback_dir [args] <
// output` in its own work dir: input.in and answer.ans are the case's files, feedback/
// a directory made empty before each case. Its writes are kept (the judge reads the
// feedback files back), bounded by the checker limits: one file at most
// judge.checker.output_mb (a bigger one kills it, SIGXFSZ: SE), all of them at most what
// the run's memory and work dir hold (more is SE, nothing copied). The feedback files
// are read through sandbox.ReadWorkFile (no symlink followed) and only their start.

// feedbackBytes bounds what is read of each feedback file.
const feedbackBytes = 64 << 10

const feedbackDir = "feedback"

// validatorArgs is the validator's argv after its command.
func (tk *task) validatorArgs() []string {
	return append([]string{"input.in", "answer.ans", feedbackDir + "/"}, tk.ent.Pkg.Spec.Checker.Args...)
}

// freshFeedback empties the validator's feedback directory.
func freshFeedback(box string) error {
	dir := filepath.Join(box, feedbackDir)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return mkdirs(dir)
}

// runValidator runs the Kattis validator on one case's output.
func (tk *task) runValidator(ctx context.Context, inPath string, output []byte, ansPath string) (check.Result, error) {
	box := filepath.Join(tk.dir, "validator")
	if err := toolBox(box, tk.validator, map[string]string{"input.in": inPath, "answer.ans": ansPath}); err != nil {
		return check.Result{}, err
	}
	if err := freshFeedback(box); err != nil {
		return check.Result{}, err
	}
	// The output goes in on stdin, from a file outside the validator's work dir.
	outPath := filepath.Join(tk.dir, "validator.stdin")
	if err := os.WriteFile(outPath, output, 0o644); err != nil {
		return check.Result{}, err
	}
	stdin, err := os.Open(outPath)
	if err != nil {
		return check.Result{}, err
	}
	defer stdin.Close()
	res, _, stderr, err := tk.runTool(ctx, toolRun{box: box, tool: tk.validator, args: tk.validatorArgs(),
		stdin: stdin, wall: tk.j.cfg.Checker.Wall, keepWrites: true})
	if errors.Is(err, sandbox.ErrWriteBackLimit) {
		return check.Result{Verdict: job.VerdictSE, Message: "validator wrote more than the judge keeps",
			CheckerMessage: "validator: " + err.Error()}, nil
	}
	if err != nil {
		return check.Result{}, fmt.Errorf("validator: %w", err)
	}
	return check.Kattis(toolEndedNormally(res), res.ExitCode, readFeedback(box), stderr), nil
}

// kattisInteraction runs the Kattis validator as the interactor.
func (tk *task) kattisInteraction() interaction {
	box := filepath.Join(tk.dir, "validator")
	return interaction{label: "validator", tool: tk.validator, box: box,
		files: map[string]string{"input.in": "in", "answer.ans": "ans"},
		args:  tk.validatorArgs(), keepWrites: true, firstEnd: true,
		prepare: func() error { return freshFeedback(box) },
		decide: func(ok bool, code int, stderr []byte) check.Result {
			return check.Kattis(ok, code, readFeedback(box), stderr)
		}}
}

// readFeedback reads the start of each feedback file the validator wrote.
func readFeedback(box string) check.Feedback {
	var fb check.Feedback
	for name, dst := range map[string]*[]byte{"judgemessage.txt": &fb.JudgeMessage, "teammessage.txt": &fb.TeamMessage,
		"score.txt": &fb.Score, "score_multiplier.txt": &fb.ScoreMultiplier} {
		b, err := sandbox.ReadWorkFile(filepath.Join(box, feedbackDir), name, feedbackBytes)
		switch {
		case err == nil:
			*dst = b
		case errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EXDEV):
			fb.Err = fmt.Errorf("%s is a link", name)
		default:
			fb.Err = fmt.Errorf("%s: %v", name, err)
		}
	}
	return fb
}
