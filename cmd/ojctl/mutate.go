package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// safety are the flags of every command that changes something.
type safety struct {
	dryRun, yes bool
}

func (s *safety) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&s.dryRun, "dry-run", false, "show what would change (the server's counts) and change nothing")
	cmd.Flags().BoolVarP(&s.yes, "yes", "y", false, "do not ask for confirmation (needed when stdin is not a terminal)")
}

// effect is what one call of a mutating endpoint did (or would do, on a dry run).
type effect struct {
	// result is the server's answer, printed as is with -o json.
	result any
	// changes is how many entries it changed, or in a dry run would change (the answer's
	// would_<verb> count: a dry run's done-count is 0).
	changes int
	// requested is how many were asked for, when that is a count (replay of ids,
	// rejudge): fewer changes than requested is "partly done". -1 when it does not apply.
	requested int
	// fields are the rows of the table output.
	fields [][2]string
}

// mutation describes a mutating command for mutate.
type mutation struct {
	verb string // what it does, for the prompt and messages: "replay dead letters"
	noun string // what it counts: "entries", "dead letters"
	call func(ctx context.Context, dryRun bool) (effect, error)
}

// mutate runs the dry-run / confirm / do protocol shared by reclaim, dlq replay, trim,
// rejudge and cancel:
//   - --dry-run: one dry-run call, its counts printed, exit 0;
//   - --yes: the real call;
//   - a terminal: a dry-run call, "… N entries. Proceed? [y/N]", then the real call;
//   - no terminal, no --yes: refused before any call (exit 2), nothing changed.
func (a *app) mutate(cmd *cobra.Command, s safety, m mutation) error {
	ctx := cmd.Context()
	if s.dryRun {
		eff, err := m.call(ctx, true)
		if err != nil {
			return err
		}
		return a.printEffect(eff, fmt.Sprintf("would %s: %d %s (dry run); nothing changed", m.verb, eff.changes, m.noun))
	}
	if !s.yes {
		if !a.stdinTTY {
			return refusedf("refusing to %s without confirmation: stdin is not a terminal; pass --yes to proceed (or --dry-run to see the counts)", m.verb)
		}
		eff, err := m.call(ctx, true)
		if err != nil {
			return err
		}
		if eff.changes == 0 {
			return a.printEffect(eff, fmt.Sprintf("nothing to do: %s would change 0 %s", m.verb, m.noun))
		}
		ok, err := a.confirm(ctx, fmt.Sprintf("%s: %d %s. Proceed? [y/N] ", m.verb, eff.changes, m.noun))
		if err != nil {
			return err
		}
		if !ok {
			return refusedf("not confirmed: nothing changed")
		}
	}
	eff, err := m.call(ctx, false)
	if err != nil {
		return err
	}
	note := fmt.Sprintf("%s: %d %s", m.verb, eff.changes, m.noun)
	if err := a.printEffect(eff, note); err != nil {
		return err
	}
	switch {
	case eff.requested < 0 || eff.changes >= eff.requested:
		return nil
	case eff.changes == 0:
		return failf("%s: none of the %d requested was changed", m.verb, eff.requested)
	default:
		return partialf("partly done: %s: %d of %d requested", m.verb, eff.changes, eff.requested)
	}
}

// doneOrWould picks an answer's count for effect.changes and its table row: what was done,
// or in a dry run what would be ("Would replay: 2"; the done-count is 0 then).
func doneOrWould(dryRun bool, label, wouldLabel string, done, would int) (int, [2]string) {
	if dryRun {
		return would, [2]string{wouldLabel, itoa(would)}
	}
	return done, [2]string{label, itoa(done)}
}

// printEffect prints the server's answer (-o json) or its counts and a one-line note.
func (a *app) printEffect(eff effect, note string) error {
	return a.print(eff.result, func(p *printer) {
		p.fields(eff.fields)
		p.printf("%s\n", note)
	})
}

// confirm asks question on stderr and reads the answer from stdin; only y or yes is yes.
// The read runs aside so that Ctrl-C (which cancels ctx) ends the wait.
func (a *app) confirm(ctx context.Context, question string) (bool, error) {
	fmt.Fprint(a.stderr, question)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		answer <- line
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(a.stderr)
		return false, ctx.Err()
	case line := <-answer:
		ans := strings.ToLower(strings.TrimSpace(line))
		return ans == "y" || ans == "yes", nil
	}
}
