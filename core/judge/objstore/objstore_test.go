package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"oj/core/judge/objstore"
	"oj/core/judge/objstore/s3test"
)

func TestFS(t *testing.T) {
	s, err := objstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	conformance(t, s)
}

func TestS3(t *testing.T) {
	cfg := s3test.Config(t)
	s, err := objstore.NewS3(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	conformance(t, s)
}

func conformance(t *testing.T, s objstore.Store) {
	ctx := context.Background()
	t.Run("missing key", func(t *testing.T) {
		if _, err := s.Get(ctx, "problems/none.zip"); !errors.Is(err, objstore.ErrNotFound) {
			t.Fatalf("Get: %v", err)
		}
		if _, err := s.Stat(ctx, "problems/none.zip"); !errors.Is(err, objstore.ErrNotFound) {
			t.Fatalf("Stat: %v", err)
		}
		if ok, err := s.Exists(ctx, "problems/none.zip"); ok || err != nil {
			t.Fatalf("Exists: %v %v", ok, err)
		}
	})
	t.Run("put get stat", func(t *testing.T) {
		data := []byte("hello package")
		sha, err := objstore.PutProblem(ctx, s, data)
		if err != nil {
			t.Fatal(err)
		}
		if sha != objstore.SHA256Hex(data) || !objstore.ValidSHA256(sha) {
			t.Fatalf("sha %s", sha)
		}
		rc, err := s.Get(ctx, objstore.ProblemKey(sha))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if !bytes.Equal(got, data) {
			t.Fatalf("got %q", got)
		}
		info, err := s.Stat(ctx, objstore.ProblemKey(sha))
		if err != nil || info.Size != int64(len(data)) {
			t.Fatalf("stat %+v %v", info, err)
		}
		if _, err := objstore.PutProblem(ctx, s, data); err != nil {
			t.Fatalf("second put: %v", err)
		}
	})
	t.Run("bounded run artefact", func(t *testing.T) {
		key := objstore.RunKey("sub1", 2, "compile.log")
		if key != "runs/sub1/2/compile.log" {
			t.Fatalf("key %s", key)
		}
		if err := objstore.PutBounded(ctx, s, key, []byte(strings.Repeat("x", 5000)), 100); err != nil {
			t.Fatal(err)
		}
		info, err := s.Stat(ctx, key)
		if err != nil || info.Size != int64(100+len(objstore.TruncationMark)) {
			t.Fatalf("stat %+v %v", info, err)
		}
	})
	t.Run("bad keys refused", func(t *testing.T) {
		for _, k := range []string{"", "/abs", "a/../b", "a//b", "..", "a/"} {
			if err := s.Put(ctx, k, strings.NewReader("x"), 1); err == nil {
				t.Errorf("key %q accepted", k)
			}
		}
	})
}

func TestConfigValidateNamesTheKey(t *testing.T) {
	c := objstore.DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.Backend = "s3"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "storage.s3.endpoint") {
		t.Fatalf("err = %v", err)
	}
	c.Backend = "tape"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "storage.backend") {
		t.Fatalf("err = %v", err)
	}
}
