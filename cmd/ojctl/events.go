package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
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

Without --follow it ends at the newest event. With --follow it waits for new ones and
reconnects by itself: when the connection drops, the server restarts or refuses the
connection, or answers that it is busy or starting (5xx, 429), it says so on stderr
("reconnecting in …") and tries again with a growing pause (up to 10 s), resuming from
the last cursor it reached (with --since now, from where the feed started), so nothing
is missed or printed twice. Only SIGINT (Ctrl-C) or SIGTERM stop it, cleanly, after the
event being printed, or an answer trying again cannot change: a bad token (401), a token
that may not read the feed (403), a bad request (400). -o jsonl prints one event per
line, for scripts. A problem verification's submissions ("ojctl problem verify") are
left out unless --purpose verify (only them) or all asks for them.

A cursor the server no longer has (410: older than its events.retention, or not one it
gave out) ends it with exit 1 and what to do: read again the submissions you track, then
follow from --since now.`,
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

// Reconnecting: the first pause, and the longest.
const (
	reconnectFirst = 250 * time.Millisecond
	reconnectMax   = 10 * time.Second
)

// followFeed prints the feed. Following, it outlives the server: after a dropped
// connection, a refused connect or an answer of a server restarting or busy (5xx, 429,
// 408), it says on stderr that it is reconnecting and reads on from the last cursor it
// reached, pausing longer each time (up to reconnectMax; from the start again once a
// connection got through). Only the user (a signal) or an answer that trying again
// cannot change (401, 403, 400, 410, …) ends it.
func (a *app) followFeed(ctx context.Context, c *client.Client, q client.FeedQuery) error {
	pause := reconnectFirst
	for {
		from := q.Since
		reached, err := c.Feed(ctx, q, func(ev wire.Event) error { return a.printEvent(ev) })
		if reached != "" {
			q.Since = reached
		}
		switch {
		case ctx.Err() != nil:
			return nil // stopped by a signal: a clean end
		case err == nil && !q.Follow:
			return nil
		case err != nil && client.StatusOf(err) == http.StatusGone:
			return feedGone(err, q.Since)
		case err != nil && (!q.Follow || !retryable(err)):
			return err
		case err == nil:
			err = errors.New("the server ended the feed")
		}
		if q.Since != from {
			pause = reconnectFirst // it got through and moved on: a new outage
		}
		wait := pause
		var ce *client.Error
		if errors.As(err, &ce) && ce.RetryAfter > wait {
			wait = min(ce.RetryAfter, time.Minute)
		}
		fmt.Fprintf(a.stderr, "ojctl events: %v; reconnecting in %s, resuming after %s\n", err, wait, orDash(q.Since))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		pause = min(pause*2, reconnectMax)
	}
}

// retryable reports whether the feed may answer another try differently: no answer
// (the server is down or restarting), or one of a server busy or starting.
func retryable(err error) bool {
	switch s := client.StatusOf(err); {
	case s == 0, s >= 500, s == http.StatusTooManyRequests, s == http.StatusRequestTimeout:
		return true
	}
	return false
}

// feedGone is a 410: the cursor is older than what the server keeps (its
// events.retention), or is not one this server gave out.
func feedGone(err error, since string) error {
	var ce *client.Error
	errors.As(err, &ce)
	return &exitError{code: exitFailure, kind: ce.Code, msg: fmt.Sprintf("the feed cannot resume after %s: %s\n"+
		"Events between that cursor and now may be lost, so following on would miss results. To go on: "+
		"read again each submission you track (ojctl status ID, or ojctl submissions), then follow from now: "+
		"ojctl events --follow --since now", since, describeAPIError(ce))}
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
