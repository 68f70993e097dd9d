package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/api/wire"
)

func newEventsCmd(a *app) *cobra.Command {
	var q client.FeedQuery
	var types []string
	var meta []string
	var follow bool
	cmd := &cobra.Command{
		Use:   "events [--follow] [--since CURSOR|now] [--type T]… [--problem P] [--meta k=v]… [--purpose user|verify|all]",
		Short: "Read the results feed (reader or admin token): every state change, in commit order",
		Long: `Print the results feed (GET /api/v1/events): each submission's state changes (queued,
running, finished, dead, canceled) and each new problem version, in the order they
committed. Without --since it starts at the oldest event the server keeps; --since now at
the newest; --since CURSOR after that event (each event's "id" is its cursor).

Without --follow it ends at the newest event. With --follow it waits for new ones and, if
the connection drops or the server restarts, reconnects and resumes from the last cursor
it saw, so nothing is missed or printed twice; SIGINT (Ctrl-C) or SIGTERM stop it
cleanly, after the event being printed. -o jsonl prints one event per line, for scripts.
A problem verification's submissions ("ojctl problem verify") are left out unless
--purpose verify (only them) or all asks for them.

A cursor the server no longer keeps (older than its events.retention) ends it with exit
1 and a message saying how to resynchronise.`,
		Example: `  ojctl events --since now --follow -o jsonl
  ojctl events --type submission.finished --meta contest=icpc-2026 -o jsonl | jq -c '.data | {id, verdict}'
  ojctl events --follow --since "$(cat last-cursor)" -o jsonl`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			q.Follow, q.Types = follow, types
			if q.Metadata, err = parseMeta(meta); err != nil {
				return err
			}
			return a.followFeed(cmd.Context(), c, q)
		}),
	}
	f := cmd.Flags()
	f.BoolVarP(&follow, "follow", "f", false, "wait for new events; reconnect and resume by cursor when the connection drops")
	f.StringVar(&q.Since, "since", "", "start after this event id (a cursor), or now; default: the oldest event kept")
	f.StringSliceVar(&types, "type", nil, "only these event types (repeat or comma-separate): "+fmt.Sprint(wire.EventTypes))
	f.StringVar(&q.ProblemID, "problem", "", "only this problem's events")
	f.StringArrayVar(&meta, "meta", nil, "only submissions carrying this metadata, key=value (repeatable: all must match)")
	f.StringVar(&q.Purpose, "purpose", "", "user (default), verify (a problem verification's submissions) or all")
	return cmd
}

// followFeed prints the feed; following, it reconnects after a dropped connection with
// a growing pause (at most 10 s) and resumes from the last cursor seen.
func (a *app) followFeed(ctx context.Context, c *client.Client, q client.FeedQuery) error {
	pause := 250 * time.Millisecond
	for {
		reached, err := c.Feed(ctx, q, func(ev wire.Event) error { return a.printEvent(ev) })
		if reached != "" {
			q.Since = reached
		}
		switch {
		case ctx.Err() != nil:
			return nil // stopped by a signal: a clean end
		case err == nil && !q.Follow:
			return nil
		case err != nil && client.StatusOf(err) != 0 && client.StatusOf(err) < 500:
			return err // a refusal (403, 410, 400): reconnecting will not help
		case err == nil:
			err = errors.New("the server ended the feed")
		}
		fmt.Fprintf(a.stderr, "ojctl events: %v; resuming after %s in %s\n", err, orDash(q.Since), pause)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pause):
		}
		pause = min(pause*2, 10*time.Second)
	}
}

// printEvent prints one event: a JSON line (-o json or jsonl), or a line of text.
func (a *app) printEvent(ev wire.Event) error {
	if a.output == "json" {
		return writeJSON(a.stdout, ev)
	}
	what := ev.Type + " " + ev.Reason
	if ev.Type == wire.EventProblemVersion {
		var p wire.ProblemVersionEvent
		_ = json.Unmarshal(ev.Data, &p)
		what += fmt.Sprintf(" %s version %d", p.ProblemID, p.Version)
	} else {
		var s wire.Submission
		_ = json.Unmarshal(ev.Data, &s)
		what += fmt.Sprintf(" %s %s attempt %d", s.ID, s.ProblemID, s.Attempt)
		if s.Verdict != nil {
			what += " " + *s.Verdict
		}
	}
	_, err := fmt.Fprintf(a.stdout, "%s  %s  %s\n", ev.Time.Local().Format("15:04:05.000"), ev.ID, what)
	return err
}

// parseMeta reads key=value pairs.
func parseMeta(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, usagef("--meta %q: want key=value", p)
		}
		out[k] = v
	}
	return out, nil
}
