package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// Aging a database: a fresh cluster's transaction ids are small (a few hundred), while a
// database in service passes millions and, after 2^32, a new epoch. Code that reads
// transaction ids (the results feed's cursors) is tested on a stack whose next
// transaction id was moved forward with pg_resetwal, as a database of that age has it.

// clogXactsPerSegment is how many transactions one pg_xact segment file holds: 32 pages
// of 8 kB, 4 transactions a byte.
const (
	clogPageBytes       = 8192
	clogPagesPerSegment = 32
	clogXactsPerSegment = clogPageBytes * clogPagesPerSegment * 4
)

// NextXID is the full transaction id (epoch and id, as pg_current_xact_id) the stack's
// PostgreSQL will give the next transaction.
func (s *Stack) NextXID() uint64 {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.PostgresURL)
	if err != nil {
		s.t.Fatalf("next xid: %v", err)
	}
	defer conn.Close(ctx)
	// pg_snapshot_xmax: the first transaction id not yet given out.
	var next string
	if err := conn.QueryRow(ctx, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text`).Scan(&next); err != nil {
		s.t.Fatalf("next xid: %v", err)
	}
	n, err := strconv.ParseUint(next, 10, 64)
	if err != nil {
		s.t.Fatalf("next xid %q: %v", next, err)
	}
	return n
}

// AgeTo moves the stack's PostgreSQL forward so that the next transaction gets the full
// transaction id next: it stops the server, sets the id with pg_resetwal (which takes
// the 32-bit id and the epoch apart) and starts it again. Ids are never given out twice:
// next must be past every id already used (NextXID). The pg_xact page that will record
// the new ids' commits is created zero-filled, as pg_resetwal's manual says.
func (s *Stack) AgeTo(next uint64) {
	s.t.Helper()
	if cur := s.NextXID(); next < cur {
		s.t.Fatalf("age to xid %d: the stack is already at %d", next, cur)
	}
	xid, epoch := uint32(next), uint32(next>>32)
	if xid < 3 {
		s.t.Fatalf("age to xid %d: its 32-bit part %d is not a normal transaction id", next, xid)
	}
	s.StopPostgres()
	pgdata := filepath.Join(s.dir, "pg")
	if err := extendClog(pgdata, xid); err != nil {
		s.t.Fatal(err)
	}
	bin := os.Getenv("OJ_PG_BIN")
	if bin == "" {
		bin = "/usr/lib/postgresql/15/bin"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// pg_resetwal refuses to run as root; the data belongs to postgres (scripts/stack.sh).
	out, err := exec.CommandContext(ctx, "runuser", "-u", "postgres", "--", filepath.Join(bin, "pg_resetwal"),
		"-x", strconv.FormatUint(uint64(xid), 10), "-e", strconv.FormatUint(uint64(epoch), 10), "-D", pgdata).CombinedOutput()
	if err != nil {
		s.t.Fatalf("pg_resetwal: %v\n%s", err, out)
	}
	s.StartPostgres()
	if got := s.NextXID(); got < next || got > next+100 {
		s.t.Fatalf("aged to xid %d, the server gives out %d", next, got)
	}
}

// extendClog makes sure the pg_xact segment holding xid exists and reaches past xid's
// page: PostgreSQL reads that page at start and zeroes a page itself only when an id is
// the first of its page. Existing bytes are kept.
func extendClog(pgdata string, xid uint32) error {
	seg := filepath.Join(pgdata, "pg_xact", fmt.Sprintf("%04X", xid/clogXactsPerSegment))
	f, err := os.OpenFile(seg, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("pg_xact segment: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("pg_xact segment: %w", err)
	}
	if st.Size() < clogPageBytes*clogPagesPerSegment {
		if err := f.Truncate(clogPageBytes * clogPagesPerSegment); err != nil {
			return fmt.Errorf("pg_xact segment: %w", err)
		}
	}
	pg, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("pg_xact segment: %w", err)
	}
	uid, _ := strconv.Atoi(pg.Uid)
	gid, _ := strconv.Atoi(pg.Gid)
	if err := f.Chown(uid, gid); err != nil {
		return fmt.Errorf("pg_xact segment: %w", err)
	}
	return nil
}
