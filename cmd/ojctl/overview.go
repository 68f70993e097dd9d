package main

import (
	"github.com/spf13/cobra"

	"oj/core/wire"
)

func newOverviewCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "overview",
		Short: "Lanes, outbox, dead letters and submissions at a glance",
		Long: `Show, per lane, the submissions waiting in the outbox for their turn (and how long the
oldest has waited: fair release puts them in the stream as workers free up, giving every
user a turn), the stream length, the pending entries (PEL) and the oldest one's idle
time, the group's lag and its consumers; the outbox backlog and its oldest age;
the dead-letter count; submissions by state; the Redis version; and each language no
live active worker runs (its only worker quarantined, disabled or drained, or none live),
before its submissions wait. Read from XINFO and
XPENDING's summary, so it is cheap to run often (from cron or a monitoring check).`,
		Example: `  ojctl overview
  ojctl overview -o json | jq '.lanes[] | select(.pending > 100)'`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			o, err := c.Overview(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(o, func(p *printer) { printOverview(p, o) })
		}),
	}
}

func printOverview(p *printer, o *wire.Overview) {
	p.heading("Lanes")
	rows := make([][]string, 0, len(o.Lanes))
	for _, l := range o.Lanes {
		idle := "-"
		if l.Pending > 0 {
			idle = ms(l.OldestPendingIdle)
		}
		group := yesNo(l.GroupExists)
		waiting := itoa(l.Waiting)
		if l.Waiting > 0 {
			waiting += " (" + ms(l.OldestWaitMS) + ")"
		}
		// LAG is Redis's figure, which a failover can leave stale; UNDELIVERED is counted.
		undelivered := itoa(l.Undelivered)
		if l.UndeliveredCapped {
			undelivered = ">=" + undelivered
		}
		rows = append(rows, []string{l.Lane, waiting, itoa(l.Length), itoa(l.Pending), idle, itoa(l.Lag), undelivered,
			itoa(l.Consumers), group})
	}
	p.table([]string{"LANE", "WAITING", "LENGTH", "PENDING", "OLDEST IDLE", "LAG", "UNDELIVERED", "CONSUMERS", "GROUP"}, rows)

	if len(o.NoWorker) > 0 {
		p.heading("Waiting for a worker (ojctl worker ls)")
		rows = rows[:0]
		for _, w := range o.NoWorker {
			rows = append(rows, []string{w.Lane, w.Language, itoa(w.Waiting), ms(w.OldestWaitMS), w.Reason})
		}
		p.table([]string{"LANE", "LANGUAGE", "WAITING", "OLDEST", "REASON"}, rows)
	}

	var langs [][]string
	for _, l := range o.Languages {
		if l.Problem != "" {
			langs = append(langs, []string{l.Language, itoa(int64(l.Live)), itoa(int64(l.Quarantined)), itoa(int64(l.Disabled)),
				itoa(int64(l.Draining)), l.Problem})
		}
	}
	if len(langs) > 0 {
		p.heading("Languages without an active worker (ojctl worker ls)")
		p.table([]string{"LANGUAGE", "LIVE", "QUARANTINED", "DISABLED", "DRAINING", "PROBLEM"}, langs)
	}

	p.heading("Queue")
	dead := itoa(o.DeadLetters)
	if o.DeadEstimated {
		dead = "~" + dead
	}
	oldest := "-"
	if o.Outbox.Backlog > 0 {
		oldest = ms(o.Outbox.OldestAgeMS)
	}
	p.fields([][2]string{
		{"Outbox backlog", itoa(o.Outbox.Backlog)},
		{"Outbox oldest", oldest},
		{"Dead letters", dead},
		{"DLQ stream", itoa(o.DLQStreamLength)},
		{"Redis", o.RedisVersion},
		{"At", stamp(o.At)},
	})

	p.heading("Submissions")
	rows = rows[:0]
	for _, s := range o.Submissions {
		n := itoa(s.Count)
		if s.Estimated {
			n = "~" + n
		}
		rows = append(rows, []string{s.State, n})
	}
	p.table([]string{"STATE", "COUNT"}, rows)

	if len(o.Runs) > 0 {
		p.heading("Runs (lane run, kept for runs.retention)")
		rows = rows[:0]
		for _, s := range o.Runs {
			rows = append(rows, []string{s.State, itoa(s.Count)})
		}
		p.table([]string{"STATE", "COUNT"}, rows)
	}
	if len(o.RunOrigins) > 1 || len(o.RunOrigins) == 1 && o.RunOrigins[0].Origin != "api" {
		p.heading("Runs by face (api: the Run button; judge0: the Judge0 API)")
		rows = rows[:0]
		for _, r := range o.RunOrigins {
			rows = append(rows, []string{r.Origin, itoa(r.Count)})
		}
		p.table([]string{"ORIGIN", "COUNT"}, rows)
	}
	if cb := o.RunCallbacks; cb.Pending > 0 || cb.Failed > 0 {
		p.heading("Run callbacks not delivered (a run's result PUT to its callback URL)")
		oldest := "-"
		if cb.Pending > 0 {
			oldest = ms(cb.OldestPendingMS)
		}
		p.fields([][2]string{{"Pending", itoa(cb.Pending)}, {"Oldest pending", oldest}, {"Failed", itoa(cb.Failed)}})
	}
}
