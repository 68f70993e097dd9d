package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/wire"
)

// ojctl webhook ls: the endpoints with their backlogs and how they are doing.
func newWebhookListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "ls",
		Aliases: []string{"list"},
		Short:   "List the endpoints with their backlogs; failing and disabled ones stand out",
		Long: `List every endpoint: its state (enabled; failing — its tries fail since FAILING; disabled,
and why), its deliveries pending (RETRY: of those, after a failed try), delivered among
the last 24 hours' and failed (given up; redeliverable), the age of its oldest pending
delivery and its last error with its age ("recovered; failed 5m ago: …" once a delivery
succeeded after it). Exit code 1 when an endpoint is failing or disabled by the
dispatcher (a 410 or a whole window of failures), so a cron job can alert on it.`,
		Example: `  ojctl webhook ls
  ojctl webhook ls -o json | jq '.items[] | select(.stats.failed > 0) | .url'`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			list, err := c.Webhooks(cmd.Context())
			if err != nil {
				return err
			}
			now := a.clock()
			unhealthy := 0
			err = a.print(list, func(p *printer) {
				rows := make([][]string, 0, len(list.Items))
				for _, w := range list.Items {
					rows = append(rows, []string{w.ID, w.URL, webhookState(w), itoa(w.Stats.Pending), itoa(w.Stats.Retrying),
						itoa(w.Stats.Delivered), itoa(w.Stats.Failed), sinceOr(now, w.Stats.OldestPending), lastError(now, w)})
				}
				p.table([]string{"ID", "URL", "STATE", "PENDING", "RETRY", "DELIVERED 24H", "FAILED", "OLDEST", "LAST ERROR"}, rows)
			})
			if err != nil {
				return err
			}
			for _, w := range list.Items {
				if w.FailingSince != nil || (!w.Enabled && w.DisabledReason != "" && !strings.HasPrefix(w.DisabledReason, "disabled by ")) {
					unhealthy++
				}
			}
			if unhealthy > 0 {
				return failf("%d webhook endpoint(s) failing or disabled by the dispatcher: see runbooks/webhooks-failing.md", unhealthy)
			}
			return nil
		}),
	}
}

// webhookState is an endpoint's state in a word or three.
func webhookState(w wire.Webhook) string {
	switch {
	case !w.Enabled:
		return "disabled: " + clipLine(w.DisabledReason, 40)
	case w.FailingSince != nil:
		return "failing since " + stamp(*w.FailingSince)
	}
	return "enabled"
}

// lastError is an endpoint's last error with its age, marked as past once a delivery
// succeeded after it (failing_since is cleared then): an endpoint that recovered does
// not look as if it were failing.
func lastError(now time.Time, w wire.Webhook) string {
	if w.LastError == "" {
		return "-"
	}
	at := ""
	if w.LastErrorAt != nil {
		at = " " + sinceOr(now, w.LastErrorAt) + " ago"
	}
	if w.FailingSince == nil {
		return "recovered; failed" + at + ": " + clipLine(w.LastError, 50)
	}
	return strings.TrimPrefix(at+": ", " ") + clipLine(w.LastError, 60)
}

func sinceOr(now time.Time, t *time.Time) string {
	if t == nil {
		return "-"
	}
	return now.Sub(*t).Round(time.Second).String()
}

func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
