package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/wire"
)

func newSubmitCmd(a *app) *cobra.Command {
	var (
		problem, lang, key string
		wait               bool
		timeout            time.Duration
		meta               []string
	)
	cmd := &cobra.Command{
		Use:   "submit FILE --problem P [--lang L] [--meta k=v]… [--wait]",
		Short: "Submit a source file for judging",
		Long: `Submit FILE to problem P. The language is guessed from the extension when --lang
is not given: .c c11, .cpp/.cc/.cxx cpp17, .py python3, .go go, .java java17, .rs rust,
.kt kotlin, .scala scala, .cs csharp, .js javascript, .ts typescript, .hs haskell,
.ml ocaml, .pas pascal, .f90/.f95/.f03/.f08 fortran, .lua lua, .pl/.pm perl, .sh bash,
.rb ruby, .php php, .r r ("ojctl languages" lists what the server has; C17, C++20,
C++23 and PyPy are never guessed: pass --lang c17, cpp20, cpp23 or pypy3).

Without --wait it prints the new submission's id and exits. With --wait it follows
the submission's events, printing a progress line per state change and per case as
it is judged, then the verdict and the per-case table; with -o json the progress goes to stderr and stdout
holds the finished submission exactly as GET /api/v1/submissions/{id} returns it.
With --wait the exit code is 0 when the submission was judged (whatever the
verdict) and 1 when it ended dead or canceled.

--idempotency-key makes a retried submit (say, from a script) return the first
submission instead of judging twice.`,
		Example: `  ojctl submit a.cpp --problem aplusb
  ojctl submit sol.py --problem aplusb --wait
  ojctl submit Main.java --problem aplusb --lang java17 --wait -o json | jq -r .verdict`,
		Args: cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			if lang == "" {
				lang = languageByExt[strings.ToLower(filepath.Ext(args[0]))]
				if lang == "" {
					return usagef("cannot guess the language of %s from its extension: pass --lang (see ojctl languages)", args[0])
				}
			}
			src, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if wait && timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			metadata, err := parseMeta(meta)
			if err != nil {
				return err
			}
			res, err := c.Submit(ctx, wire.SubmitRequest{ProblemID: problem, Language: lang, Source: string(src), Metadata: metadata}, key)
			if err != nil {
				return err
			}
			if !wait {
				if res.Submission != nil {
					return a.print(res.Submission, func(p *printer) { printSubmission(p, res.Submission) })
				}
				return a.print(res.Accepted, func(p *printer) {
					p.fields([][2]string{{"ID", res.Accepted.ID}, {"State", res.Accepted.State}})
				})
			}
			fmt.Fprintf(a.progress(), "submitted %s (%s, %s)\n", res.ID(), problem, lang)
			s, err := a.follow(ctx, c, res.ID())
			if err != nil {
				if ctx.Err() == context.DeadlineExceeded {
					return failf("submission %s not judged within %s (ojctl status %s --watch follows it)", res.ID(), timeout, res.ID())
				}
				return err
			}
			if err := a.print(s, func(p *printer) { printSubmission(p, s) }); err != nil {
				return err
			}
			if s.State != "finished" {
				return failf("submission %s ended %s", s.ID, s.State)
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&problem, "problem", "p", "", "problem id (required)")
	f.StringVarP(&lang, "lang", "l", "", "language id (default: guessed from the file's extension)")
	f.BoolVarP(&wait, "wait", "w", false, "follow the submission until it is judged, then print the verdict and cases")
	f.DurationVar(&timeout, "timeout", 10*time.Minute, "with --wait: give up after this long (0: never)")
	f.StringVar(&key, "idempotency-key", "", "Idempotency-Key header: the same key and body return the first submission")
	f.StringArrayVar(&meta, "meta", nil, "metadata to tag the submission with, key=value (repeatable; at most 16): echoed wherever it appears, a filter of lists and the feed")
	_ = cmd.MarkFlagRequired("problem")
	return cmd
}
