package cache

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"oj/core/judge/objstore"
	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
)

// slowStore counts Gets and makes each one slow, so concurrent Acquires overlap.
type slowStore struct {
	objstore.Store
	gets atomic.Int64
}

func (s *slowStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	s.gets.Add(1)
	time.Sleep(50 * time.Millisecond)
	return s.Store.Get(ctx, key)
}

func setup(t *testing.T, budget int64) (*Cache, *slowStore, objstore.Store) {
	t.Helper()
	fs, err := objstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ss := &slowStore{Store: fs}
	c, err := New(Config{Dir: t.TempDir(), BudgetBytes: budget, FetchTimeout: time.Minute}, ss, problem.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return c, ss, fs
}

func put(t *testing.T, s objstore.Store, title string) string {
	t.Helper()
	sha, err := objstore.PutProblem(context.Background(), s, problemtest.Zip(problemtest.APlusB("title: "+title+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

func TestConcurrentAcquireDownloadsOnce(t *testing.T) {
	c, ss, fs := setup(t, 1<<30)
	sha := put(t, fs, "once")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := c.Acquire(context.Background(), sha)
			if err != nil {
				t.Error(err)
				return
			}
			defer e.Release()
			if e.Pkg.Title() != "once" || e.Pkg.CaseCount() != 3 {
				t.Errorf("pkg %+v", e.Pkg.Spec)
			}
			if _, err := os.Stat(filepath.Join(e.Dir, "tests", "1.in")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := ss.gets.Load(); n != 1 {
		t.Fatalf("%d downloads, want 1", n)
	}
	e, err := c.Acquire(context.Background(), sha)
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	if n := ss.gets.Load(); n != 1 {
		t.Fatalf("cache hit downloaded again (%d)", n)
	}
}

func TestHashMismatchIsRefused(t *testing.T) {
	c, _, fs := setup(t, 1<<30)
	data := problemtest.Zip(problemtest.APlusB("title: x\n"))
	liar := objstore.SHA256Hex([]byte("something else"))
	if err := fs.Put(context.Background(), objstore.ProblemKey(liar), bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	_, err := c.Acquire(context.Background(), liar)
	if !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("err = %v, want hash mismatch", err)
	}
	if n, _ := c.Usage(); n != 0 {
		t.Fatalf("%d entries cached after a mismatch", n)
	}
}

func TestMissingPackage(t *testing.T) {
	c, _, _ := setup(t, 1<<30)
	_, err := c.Acquire(context.Background(), objstore.SHA256Hex([]byte("nope")))
	if !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestEvictsLeastRecentlyUsedButNotHeld(t *testing.T) {
	c, ss, fs := setup(t, 1) // every package is over budget
	a, b := put(t, fs, "a"), put(t, fs, "b")
	ea, err := c.Acquire(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := c.Acquire(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Usage(); n != 2 {
		t.Fatalf("held entries evicted: %d left", n)
	}
	eb.Release()
	if n, _ := c.Usage(); n != 1 {
		t.Fatalf("released entry kept: %d", n)
	}
	if _, err := os.Stat(ea.Dir); err != nil {
		t.Fatalf("held entry's files gone: %v", err)
	}
	ea.Release()
	ea.Release() // idempotent
	if n, total := c.Usage(); n != 0 || total != 0 {
		t.Fatalf("usage %d %d", n, total)
	}
	before := ss.gets.Load()
	e, err := c.Acquire(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	if ss.gets.Load() != before+1 {
		t.Fatal("evicted package not downloaded again")
	}
}

func TestRestartKeepsCompleteEntries(t *testing.T) {
	fs, _ := objstore.NewFS(t.TempDir())
	dir := t.TempDir()
	cfg := Config{Dir: dir, BudgetBytes: 1 << 30, FetchTimeout: time.Minute}
	c, err := New(cfg, fs, problem.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	sha := put(t, fs, "keep")
	e, err := c.Acquire(context.Background(), sha)
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	os.MkdirAll(filepath.Join(dir, ".tmp-leftover"), 0o755)
	ss := &slowStore{Store: fs}
	c2, err := New(cfg, ss, problem.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	e, err = c2.Acquire(context.Background(), sha)
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	if ss.gets.Load() != 0 {
		t.Fatal("restart lost the cache")
	}
	if _, err := os.Stat(filepath.Join(dir, ".tmp-leftover")); !os.IsNotExist(err) {
		t.Fatal("leftover temp dir kept")
	}
}

// The cache decides a package's tree with the code the API's upload validation runs
// (problem.Read): what upload refuses, fetch refuses for the same reason, and what
// upload accepts, fetch extracts.
func TestFetchAgreesWithUploadValidation(t *testing.T) {
	c, _, fs := setup(t, 1<<30)
	withFiles := func(extra map[string]string) []byte {
		files := problemtest.APlusB("title: x\n")
		for n, v := range extra {
			files[n] = v
		}
		return problemtest.Zip(files)
	}
	for _, tc := range []struct {
		name string
		zip  []byte
	}{
		{"file inside a file", withFiles(map[string]string{"a": "x", "a/b": "y"})},
		{"file inside a test file", withFiles(map[string]string{"tests/2.out/x": "y"})},
		{"the judge's names", withFiles(map[string]string{".complete": "", ".build/checker.cpp.bin": "evil"})},
		{"plain", withFiles(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, uploadErr := problem.ReadBytes(tc.zip, problem.DefaultLimits())
			sha, err := objstore.PutProblem(context.Background(), fs, tc.zip)
			if err != nil {
				t.Fatal(err)
			}
			e, fetchErr := c.Acquire(context.Background(), sha)
			if uploadErr != nil {
				if fetchErr == nil || !problem.IsInvalid(fetchErr) || !strings.Contains(fetchErr.Error(), uploadErr.Error()) {
					t.Fatalf("upload refused it (%v), fetch said %v", uploadErr, fetchErr)
				}
				return
			}
			if fetchErr != nil {
				t.Fatalf("upload accepted it, fetch failed: %v", fetchErr)
			}
			defer e.Release()
			if e.Pkg.CaseCount() != 3 {
				t.Fatalf("cached package has %d cases", e.Pkg.CaseCount())
			}
			if _, err := os.Stat(filepath.Join(e.Dir, ".build", "checker.cpp.bin")); !os.IsNotExist(err) {
				t.Fatalf("a package's entry landed among the judge's artefacts (%v)", err)
			}
		})
	}
}
