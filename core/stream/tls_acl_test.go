package stream_test

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/job"
	"oj/core/stream"
	"oj/core/testenv"
)

// aclLine is the ACL user line of user the install guide (systemd/README.md, "Several
// hosts") tells operators to give oj, with password in place of PASSWORD: the tests run
// oj under exactly that line.
func aclLine(t *testing.T, user, password string) string {
	t.Helper()
	f, err := os.Open("../../systemd/README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "user "+user+" on ") {
			return strings.Replace(line, ">PASSWORD", ">"+password, 1)
		}
	}
	t.Fatalf(`systemd/README.md has no "user %s on ..." ACL line`, user)
	return ""
}

// A Redis reached over TLS with a verified certificate, as an ACL user limited to oj's
// keys and the commands of the documented ACL line: every Redis operation of oj works;
// a key outside ~oj:* is refused; a wrong CA, a wrong server name or a wrong password
// fail the start check with the key to fix named.
func TestTLSAndACL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	certs := testenv.MakeCerts(t)
	const password = "correct-horse"
	node := testenv.StartRedis(t, 0, false, "port 0", "tls-port {port}",
		"tls-cert-file "+certs.Cert, "tls-key-file "+certs.Key, "tls-ca-cert-file "+certs.CA, "tls-auth-clients no",
		"user default off", aclLine(t, "oj", password))
	base := stream.DefaultConfig()
	base.Addr = node.Addr()
	base.Username, base.Password = "oj", password
	base.TLS = stream.TLSConfig{Enabled: true, CAFile: certs.CA}

	for _, tc := range []struct {
		name string
		edit func(*stream.Config)
		want string // in CheckReach's error; "": reached
	}{
		{"the right CA", func(*stream.Config) {}, ""},
		{"the right CA and a name the certificate carries", func(c *stream.Config) { c.TLS.ServerName = "redis.test" }, ""},
		{"a CA that signed nothing of it", func(c *stream.Config) { c.TLS.CAFile = certs.OtherCA }, "redis.tls.ca_file: the server's certificate does not verify"},
		{"a name the certificate does not carry", func(c *stream.Config) { c.TLS.ServerName = "other.test" }, "redis.tls.server_name: "},
		{"a wrong password", func(c *stream.Config) { c.Password = "wrong" }, "redis.username/redis.password: Redis refuses them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.edit(&cfg)
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			rdb, err := stream.NewClient(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rdb.Close()
			err = stream.CheckReach(ctx, rdb)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("CheckReach: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("CheckReach: %v, want an error with %q", err, tc.want)
			}
			if err != nil {
				t.Log(err)
			}
		})
	}

	rdb, err := stream.NewClient(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	warnings, err := stream.CheckServer(ctx, rdb)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "CONFIG GET refused") {
		t.Errorf("settings check as the ACL user: %q, %v; want one warning that CONFIG GET was refused", warnings, err)
	}
	if err := rdb.Set(ctx, "other:{x}:k", "v", 0).Err(); err == nil || !strings.Contains(err.Error(), "NOPERM") {
		t.Errorf("a write outside ~oj:* as oj: %v, want NOPERM", err)
	}
	exerciseEveryCommand(t, stream.New(rdb, stream.Keys{Prefix: "oj"}), rdb)
}

// exerciseEveryCommand runs each Redis command oj sends, through the code that sends it
// where it is this package's, on the keys it uses.
func exerciseEveryCommand(t *testing.T, s *stream.Streams, rdb redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	lane := job.LaneLight
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	const sid = "6f1c2e8a-0b7d-4e55-9a43-2d5a8c1b9e70"
	must("ensure group", s.EnsureGroup(ctx, lane))
	must("ensure group again", s.EnsureGroup(ctx, lane))
	ids, errs := s.AddBatch(ctx, []stream.Add{{Stream: s.Keys.Jobs(lane), SubmissionID: sid}, {Stream: s.Keys.Jobs(lane), SubmissionID: sid},
		{Stream: s.Keys.DLQ(), SubmissionID: sid}})
	for _, err := range errs {
		must("add", err)
	}
	got, err := s.Read(ctx, lane, "w1", 10, 100*time.Millisecond)
	must("read", err)
	if len(got) != 2 {
		t.Fatalf("read %d entries, want 2", len(got))
	}
	_, _, _, err = s.AutoClaim(ctx, lane, "w2", 0, "0-0", 10)
	must("autoclaim", err)
	_, err = s.Alive(ctx, lane, ids[:2])
	must("alive", err)
	_, err = s.LaneStats(ctx, lane)
	must("lane stats", err)
	_, err = s.Pending(ctx, lane, 0, "-", 10)
	must("pending", err)
	_, err = s.Consumers(ctx, lane)
	must("consumers", err)
	_, err = s.Progress(ctx, lane)
	must("progress", err)
	_, err = s.Undelivered(ctx, lane, "0-0", 10)
	must("undelivered", err)
	_, err = s.RedisVersion(ctx)
	must("version", err)
	must("ack", s.Ack(ctx, lane, ids[0]))
	must("drop", s.Drop(ctx, lane, ids[1]))
	_, err = s.TrimSafe(ctx, lane, true)
	must("safe trim, dry run", err)
	_, err = s.TrimSafe(ctx, lane, false)
	must("safe trim", err)
	_, err = s.TrimMaxLen(ctx, lane, 100, false)
	must("trim maxlen", err)
	_, err = s.StreamLength(ctx, s.Keys.DLQ())
	must("dlq length", err)
	_, err = s.DeleteIdleConsumers(ctx, lane, 0, "w1")
	must("delete idle consumers", err)

	// core/build's commands, on its keys.
	req := s.Keys.BuildRequests()
	must("build xadd", rdb.XAdd(ctx, &redis.XAddArgs{Stream: req, MaxLen: 1000, Approx: true, Values: []any{"k", "v"}}).Err())
	err = rdb.XGroupCreateMkStream(ctx, req, "oj-builders", "0").Err()
	must("build group", err)
	msgs, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "oj-builders", Consumer: "b1", Streams: []string{req, ">"}, Count: 1, Block: 100 * time.Millisecond}).Result()
	must("build read", err)
	_, _, err = rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: req, Group: "oj-builders", Consumer: "b2", MinIdle: 0, Start: "0-0", Count: 1}).Result()
	must("build autoclaim", err)
	entry := msgs[0].Messages[0].ID
	must("build claim", rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: req, Group: "oj-builders", Consumer: "b1", Messages: []string{entry}}).Err())
	reply := s.Keys.BuildReply("1")
	_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.RPush(ctx, reply, "done")
		p.Expire(ctx, reply, time.Minute)
		return nil
	})
	must("build reply", err)
	must("build wait", rdb.BLPop(ctx, time.Second, reply).Err())
	_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.XAck(ctx, req, "oj-builders", entry)
		p.XDel(ctx, req, entry)
		return nil
	})
	must("build remove", err)
}
