package api

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"oj/core/testenv"
)

// The hub's LISTEN connection, lost again and again (a PostgreSQL failover or restart
// each time), is back soon after every loss: its retry wait starts over once a LISTEN
// took, instead of growing to its cap over the process's life.
func TestHubListensAgainAfterEachLoss(t *testing.T) {
	t.Parallel()
	app := testenv.RandomName("hubtest-")
	db := testenv.Pool(t, testenv.Schema(t, testenv.PostgresURL(t))+"&application_name="+app)
	h := newHub(db, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.run(ctx) }()
	defer func() { cancel(); <-done }()
	listener := func() (int, error) {
		var pid int
		err := db.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN oj_events%'`, app).Scan(&pid)
		return pid, err
	}
	// The waits of the losses in a row, had they kept growing, would pass 5 s by the
	// seventh; each reconnect here must stay well under that.
	for i := 1; i <= 8; i++ {
		var pid int
		testenv.WaitFor(t, 3*time.Second, "the hub's LISTEN connection", func() error {
			var err error
			pid, err = listener()
			return err
		})
		if _, err := db.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
			t.Fatal(err)
		}
		testenv.WaitFor(t, 3*time.Second, "the old LISTEN connection gone", func() error {
			if p, err := listener(); err == nil && p == pid {
				return errors.New("still there")
			}
			return nil
		})
	}
}
