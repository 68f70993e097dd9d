//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// The cluster test's checks, read from PostgreSQL once the load has finished.

// clusterCheck is one row of the checks' table.
type clusterCheck struct {
	name   string
	ok     bool
	detail string
}

func (c *cluster) check(n int) {
	t := c.t
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db := c.connect(ctx)
	defer db.Close(context.Background())
	type row struct {
		name   string
		ok     bool
		detail string
	}
	var rows []row
	for _, e := range c.extra {
		rows = append(rows, row(e))
	}
	add := func(name string, ok bool, detail string, args ...any) {
		rows = append(rows, row{name, ok, fmt.Sprintf(detail, args...)})
	}

	type sub struct {
		state, verdict, language string
		finishes, deaths         int
		claimers                 []string
	}
	subs := map[string]*sub{}
	rs, err := db.Query(ctx, `SELECT s.id::text, s.state::text, coalesce(s.verdict, ''), s.language,
		(SELECT count(*) FROM submission_history h WHERE h.submission_id = s.id AND h.event = 'finished'),
		(SELECT count(*) FROM submission_history h WHERE h.submission_id = s.id AND h.event = 'dead'),
		coalesce((SELECT array_agg(h.worker ORDER BY h.id) FROM submission_history h WHERE h.submission_id = s.id AND h.event = 'claimed'), '{}')
		FROM submissions s`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var id string
		s := &sub{}
		if err := rs.Scan(&id, &s.state, &s.verdict, &s.language, &s.finishes, &s.deaths, &s.claimers); err != nil {
			t.Fatal(err)
		}
		subs[id] = s
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}

	add("accepted submissions", len(c.expected) == n && len(subs) == n, "%d accepted of %d sent, %d rows in PostgreSQL", len(c.expected), n, len(subs))
	perKind := map[string][2]int{} // "language expected": {right, total}
	var notFinished, wrong, notOnce, dead, javaOnW3, reclaimed []string
	for id, want := range c.expected {
		s := subs[id]
		if s == nil {
			notFinished = append(notFinished, id+" (no row)")
			continue
		}
		key := fmt.Sprintf("%-8s %-3s", s.language, want)
		k := perKind[key]
		k[1]++
		if s.state != "finished" {
			notFinished = append(notFinished, id+" "+s.state)
		}
		if s.verdict == want {
			k[0]++
		} else {
			wrong = append(wrong, fmt.Sprintf("%s %s: %s, want %s", id, s.language, s.verdict, want))
		}
		perKind[key] = k
		if s.finishes != 1 {
			notOnce = append(notOnce, fmt.Sprintf("%s: %d", id, s.finishes))
		}
		if s.deaths > 0 || s.state == "dead" {
			dead = append(dead, id)
		}
		for _, w := range s.claimers {
			if w == "w3" && s.language == "java17" {
				javaOnW3 = append(javaOnW3, id)
			}
		}
		if len(s.claimers) > 1 {
			reclaimed = append(reclaimed, id)
		}
	}
	add("every one finished", len(notFinished) == 0, "%d not finished %v", len(notFinished), first(notFinished))
	keys := make([]string, 0, len(perKind))
	for k := range perKind {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := perKind[k]
		add("verdict "+k, v[0] == v[1], "%d of %d", v[0], v[1])
	}
	add("expected verdicts", len(wrong) == 0, "%d wrong %v", len(wrong), first(wrong))
	add("finished exactly once", len(notOnce) == 0, "%d with another number of 'finished' events %v", len(notOnce), first(notOnce))
	add("none dead", len(dead) == 0, "%d dead %v", len(dead), first(dead))
	add("no java17 claimed by w3 (no Java)", len(javaOnW3) == 0, "%d %v", len(javaOnW3), first(javaOnW3))
	var w3Langs []string
	err = db.QueryRow(ctx, `SELECT coalesce(languages, '{}') FROM workers WHERE name = 'w3'`).Scan(&w3Langs)
	add("w3 announced no java17", err == nil && len(w3Langs) > 0 && !slices.Contains(w3Langs, "java17"), "languages %v %v", w3Langs, err)
	var w3Claims int
	err = db.QueryRow(ctx, `SELECT count(*) FROM submission_history WHERE event = 'claimed' AND worker = 'w3'`).Scan(&w3Claims)
	add("w3 judged its share", err == nil && w3Claims > 0, "%d claims %v", w3Claims, err)

	var state string
	var stateAt time.Time
	err = db.QueryRow(ctx, `SELECT state, state_at FROM workers WHERE name = 'w1'`).Scan(&state, &stateAt)
	add("w1 drained", err == nil && state == "draining", "state %q %v", state, err)
	var after, before int
	if err == nil {
		err = db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE at > $1), count(*) FILTER (WHERE at <= $1)
			FROM submission_history WHERE event = 'claimed' AND worker = 'w1'`, stateAt).Scan(&after, &before)
	}
	add("w1 claimed nothing after the drain", err == nil && after == 0 && before > 0, "%d claims before, %d after %v", before, after, err)

	if c.redisMode == "cluster" {
		add("Redis master replaced", c.oldRedis != "", "crashed %s", c.oldRedis)
	} else {
		twice := len(c.redisKilled) == 2 && c.redisKilled[0] != c.redisKilled[1]
		add("Redis master SIGKILLed twice, replaced each time", twice, "SIGKILLed %v", c.redisKilled)
	}
	if c.redisMode == "cluster" {
		l, h := c.laneShards["light"], c.laneShards["heavy"]
		add("lanes light and heavy on two shards", l != "" && h != "" && l != h, "light on %s, heavy on %s", l, h)
	}
	var recovery bool
	err = db.QueryRow(ctx, `SELECT pg_is_in_recovery() OR inet_server_port() <> 5433`).Scan(&recovery)
	add("PostgreSQL standby promoted, in use", err == nil && !recovery, "%v", err)
	var w2Lost int
	err = db.QueryRow(ctx, `SELECT count(DISTINCT submission_id) FROM submission_history h WHERE event = 'claimed' AND worker = 'w2'
		AND EXISTS (SELECT 1 FROM submission_history l WHERE l.submission_id = h.submission_id AND l.event = 'claimed' AND l.id > h.id)`).Scan(&w2Lost)
	add("w2 SIGKILLed mid-judge, its work taken over", c.w2Killed && err == nil && w2Lost > 0, "%d of w2's claims claimed again %v", w2Lost, err)

	passed, failed := 0, 0
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-44s %-6s %s\n", "CHECK", "RESULT", "DETAIL")
	for _, r := range rows {
		res := "ok"
		if r.ok {
			passed++
		} else {
			res = "FAIL"
			failed++
		}
		fmt.Fprintf(&b, "%-44s %-6s %s\n", r.name, res, r.detail)
	}
	fmt.Fprintf(&b, "claimed more than once (a lost lease, a hand-back): %d submissions\n", len(reclaimed))
	fmt.Fprintf(&b, "faults: %s\n%d passed, %d failed\n", strings.Join(c.faults, "; "), passed, failed)
	t.Log(b.String())
	if failed > 0 {
		for _, name := range []string{"api", "dispatcher", "w1", "w2b", "w3"} {
			if p := c.proc(name); p != nil {
				logs := p.logs.String()
				if len(logs) > 4000 {
					logs = logs[len(logs)-4000:]
				}
				t.Logf("--- %s (end of its log)\n%s", name, logs)
			}
		}
		t.Fail()
	}
}

func first(s []string) []string {
	if len(s) > 3 {
		return s[:3]
	}
	return s
}
