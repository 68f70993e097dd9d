package stream_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/stream"
	"oj/core/testenv"
)

// TestTrimSafeRacingAdds trims a lane over and over while 10,000 entries are added and a
// consumer reads them and acks most: no entry may be trimmed before it was delivered, and
// no entry still pending may be trimmed at all (invariant 9).
func TestTrimSafeRacingAdds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lane := job.LaneLight
	s := grouped(t, lane)
	const total, batch = 10000, 1

	added := make(map[string]bool, total)
	var addMu sync.Mutex
	addsDone := make(chan struct{})
	go func() {
		defer close(addsDone)
		adds := make([]stream.Add, batch)
		for i := range adds {
			adds[i] = stream.Add{Stream: s.Keys.Jobs(lane), SubmissionID: "x"}
		}
		for n := 0; n < total; n += batch {
			ids, errs := s.AddBatch(ctx, adds)
			addMu.Lock()
			for i, id := range ids {
				if errs[i] != nil {
					t.Errorf("add: %v", errs[i])
					continue
				}
				added[id] = true
			}
			addMu.Unlock()
		}
	}()

	// The trimmer: safe trims as fast as Redis answers, until the adds and reads are over.
	stopTrim := make(chan struct{})
	var trims int
	var trimmer sync.WaitGroup
	trimmer.Go(func() {
		for {
			select {
			case <-stopTrim:
				return
			default:
			}
			if _, err := s.TrimSafe(ctx, lane, false); err != nil {
				t.Errorf("trim: %v", err)
				return
			}
			trims++
		}
	})

	// The consumer: reads everything and acks it at once, so that most of the time nothing
	// is pending and nothing undelivered — the moment a trim must not take for "empty" —
	// except that every tenth of the last 1,000 entries stays pending.
	delivered := make(map[string]bool, total)
	var pending []string
	addsOver := false
	for !addsOver || len(delivered) < total {
		select {
		case <-addsDone:
			addsOver = true
		default:
		}
		got, err := s.Read(ctx, lane, "c", 50, 20*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if addsOver && len(got) == 0 {
			break // nothing left to deliver: whatever is missing was trimmed undelivered
		}
		var ack []string
		for _, e := range got {
			delivered[e.ID] = true
			if len(delivered) > total-1000 && len(delivered)%10 == 0 {
				pending = append(pending, e.ID)
			} else {
				ack = append(ack, e.ID)
			}
		}
		if err := s.Ack(ctx, lane, ack...); err != nil {
			t.Fatal(err)
		}
	}
	close(stopTrim)
	trimmer.Wait()
	if t.Failed() {
		return
	}

	addMu.Lock()
	defer addMu.Unlock()
	lost := 0
	for id := range added {
		if !delivered[id] {
			lost++
		}
	}
	if len(added) != total || lost > 0 {
		t.Fatalf("%d entries added, %d trimmed before they were delivered (%d trims ran)", len(added), lost, trims)
	}
	alive, err := s.Alive(ctx, lane, pending)
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range alive {
		if !ok {
			t.Fatalf("pending entry %s was trimmed (%d trims ran)", pending[i], trims)
		}
	}
	// With everything but the pending entries acked, a last trim keeps the oldest pending
	// entry and what follows it, and drops what is older.
	res, err := s.TrimSafe(ctx, lane, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.MinID != pending[0] {
		t.Fatalf("final trim kept from %s, want the oldest pending entry %s", res.MinID, pending[0])
	}
	t.Logf("%d entries, %d trims, %d pending kept, length %d → %d", total, trims, len(pending), res.Before, res.After)
}

// TestTrimSafeAfterEverythingAcked empties a stream whose entries were all delivered and
// acked, and keeps an entry added afterwards.
func TestTrimSafeAfterEverythingAcked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Streams(t, testenv.RedisAddr(t))
	lane := job.LaneHeavy
	if _, err := s.TrimSafe(ctx, lane, false); err == nil {
		t.Fatal("trim without a consumer group succeeded; want an error naming the group")
	}
	if err := s.EnsureGroup(ctx, lane); err != nil {
		t.Fatal(err)
	}
	adds := []stream.Add{{Stream: s.Keys.Jobs(lane), SubmissionID: "a"}, {Stream: s.Keys.Jobs(lane), SubmissionID: "b"}}
	ids, _ := s.AddBatch(ctx, adds)
	got, err := s.Read(ctx, lane, "c", 10, 10*time.Millisecond)
	if err != nil || len(got) != 2 {
		t.Fatal(got, err)
	}
	if err := s.Ack(ctx, lane, ids...); err != nil {
		t.Fatal(err)
	}
	dry, err := s.TrimSafe(ctx, lane, true)
	if err != nil || dry.Before != 2 || dry.After != 0 {
		t.Fatalf("dry run = %+v, %v; want 2 → 0", dry, err)
	}
	res, err := s.TrimSafe(ctx, lane, false)
	if err != nil || res.Before != 2 || res.After != 0 {
		t.Fatalf("trim = %+v, %v; want 2 → 0", res, err)
	}
	late, _ := s.AddBatch(ctx, adds[:1])
	res, err = s.TrimSafe(ctx, lane, false)
	if err != nil || res.After != 1 || res.MinID != late[0] {
		t.Fatalf("trim after a late add = %+v, %v; want the new entry %s kept", res, err, late[0])
	}
}
