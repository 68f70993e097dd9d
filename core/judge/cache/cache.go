// Package cache keeps problem packages on a worker's local disk, extracted, by sha256.
// A package is downloaded at most once at a time (concurrent requests for the same sha256
// share one download), verified against its sha256 before use, and evicted least
// recently used when the cache outgrows its budget — never while a judge holds it.
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"oj/core/judge/objstore"
	"oj/core/judge/problem"
)

// ErrHashMismatch means the object store returned bytes whose sha256 is not the key's.
var ErrHashMismatch = errors.New("package sha256 mismatch")

const completeMarker = ".complete"

// Config configures the cache.
type Config struct {
	// Dir holds the extracted packages.
	Dir string `mapstructure:"dir"`
	// BudgetBytes bounds the disk the cache uses (packages in use may exceed it briefly).
	BudgetBytes int64 `mapstructure:"budget_bytes"`
	// FetchTimeout bounds one download and extraction.
	FetchTimeout time.Duration `mapstructure:"fetch_timeout"`
}

// DefaultConfig returns the defaults: /var/lib/oj/cache, 4 GiB, 2 minutes.
func DefaultConfig() Config {
	return Config{Dir: "/var/lib/oj/cache", BudgetBytes: 4 << 30, FetchTimeout: 2 * time.Minute}
}

// Validate names the first bad key.
func (c Config) Validate() error {
	switch {
	case c.Dir == "":
		return errors.New("cache.dir: empty")
	case c.BudgetBytes <= 0:
		return errors.New("cache.budget_bytes: must be > 0")
	case c.FetchTimeout <= 0:
		return errors.New("cache.fetch_timeout: must be > 0")
	}
	return nil
}

// Cache is a worker-local package cache. It is safe for concurrent use.
type Cache struct {
	cfg   Config
	store objstore.Store
	lim   problem.Limits
	sf    singleflight.Group

	mu      sync.Mutex
	entries map[string]*entry
	total   int64
	tick    uint64

	downloads atomic.Int64
}

type entry struct {
	sha  string
	dir  string
	pkg  *problem.Package
	size int64
	refs int
	used uint64
}

// Entry is a package held by a caller until Release.
type Entry struct {
	// Dir is the extracted package; names starting with '.' at its top are free for the
	// judge's own artefacts (see Grow).
	Dir string
	Pkg *problem.Package
	SHA string

	c    *Cache
	e    *entry
	once sync.Once
}

// New opens the cache in cfg.Dir, keeping the complete entries a previous run left.
func New(cfg Config, store objstore.Store, lim problem.Limits) (*Cache, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("package cache: %w", err)
	}
	c := &Cache{cfg: cfg, store: store, lim: lim, entries: map[string]*entry{}}
	des, err := os.ReadDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("package cache: %w", err)
	}
	for _, de := range des {
		p := filepath.Join(cfg.Dir, de.Name())
		if !de.IsDir() || !objstore.ValidSHA256(de.Name()) {
			os.RemoveAll(p)
			continue
		}
		if _, err := os.Stat(filepath.Join(p, completeMarker)); err != nil {
			os.RemoveAll(p)
			continue
		}
		pkg, err := problem.OpenDir(p, lim)
		if err != nil {
			os.RemoveAll(p)
			continue
		}
		size := dirSize(p)
		c.tick++
		c.entries[de.Name()] = &entry{sha: de.Name(), dir: p, pkg: pkg, size: size, used: c.tick}
		c.total += size
	}
	c.mu.Lock()
	c.evictLocked()
	c.mu.Unlock()
	return c, nil
}

// Acquire returns the package with the given sha256, downloading it if needed. The caller
// must Release it.
func (c *Cache) Acquire(ctx context.Context, sha string) (*Entry, error) {
	if !objstore.ValidSHA256(sha) {
		return nil, fmt.Errorf("package cache: bad sha256 %q", sha)
	}
	for range 3 {
		if e := c.hold(sha); e != nil {
			return e, nil
		}
		// The download runs detached from any one caller so that a caller giving up
		// does not fail the others waiting on the same sha256.
		ch := c.sf.DoChan(sha, func() (any, error) {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.FetchTimeout)
			defer cancel()
			return nil, c.fetch(fctx, sha)
		})
		select {
		case r := <-ch:
			if r.Err != nil {
				return nil, r.Err
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("package cache: %s evicted repeatedly before use (budget too small?)", sha)
}

func (c *Cache) hold(sha string) *Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[sha]
	if e == nil {
		return nil
	}
	e.refs++
	c.tick++
	e.used = c.tick
	return &Entry{Dir: e.dir, Pkg: e.pkg, SHA: sha, c: c, e: e}
}

// Release gives the package back; it may be evicted from then on.
func (h *Entry) Release() {
	h.once.Do(func() {
		h.c.mu.Lock()
		h.e.refs--
		h.c.evictLocked()
		h.c.mu.Unlock()
	})
}

// Grow accounts n more bytes to the entry (artefacts the judge built inside Dir).
func (h *Entry) Grow(n int64) {
	h.c.mu.Lock()
	h.e.size += n
	h.c.total += n
	h.c.mu.Unlock()
}

// Downloads counts the packages fetched from the object store since New.
func (c *Cache) Downloads() int64 { return c.downloads.Load() }

// Usage returns the number of cached packages and the bytes they take.
func (c *Cache) Usage() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.total
}

func (c *Cache) evictLocked() {
	for c.total > c.cfg.BudgetBytes {
		var victim *entry
		for _, e := range c.entries {
			if e.refs == 0 && (victim == nil || e.used < victim.used) {
				victim = e
			}
		}
		if victim == nil {
			return
		}
		delete(c.entries, victim.sha)
		c.total -= victim.size
		// Rename first so a concurrent fetch of the same sha256 never sees half a tree.
		gone := filepath.Join(c.cfg.Dir, ".tmp-evict-"+victim.sha)
		if os.Rename(victim.dir, gone) == nil {
			go os.RemoveAll(gone)
		} else {
			os.RemoveAll(victim.dir)
		}
	}
}

// fetch downloads, verifies, validates and extracts one package.
func (c *Cache) fetch(ctx context.Context, sha string) error {
	c.downloads.Add(1)
	tmp, err := os.MkdirTemp(c.cfg.Dir, ".tmp-"+sha[:12]+"-")
	if err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	zipPath := filepath.Join(tmp, "package.zip")
	size, err := c.download(ctx, sha, zipPath)
	if err != nil {
		return err
	}
	f, err := os.Open(zipPath)
	if err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	defer f.Close()
	pkg, err := problem.Read(f, size, c.lim)
	if err != nil {
		return fmt.Errorf("package cache: package %s: %w", sha, err)
	}
	tree := filepath.Join(tmp, "tree")
	if err := os.Mkdir(tree, 0o755); err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	if err := pkg.Extract(tree); err != nil {
		return fmt.Errorf("package cache: extract %s: %w", sha, err)
	}
	if err := os.WriteFile(filepath.Join(tree, completeMarker), nil, 0o644); err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	// Describe the extracted tree as later runs will (OpenDir), so a restart sees the
	// same package.
	if pkg, err = problem.OpenDir(tree, c.lim); err != nil {
		return fmt.Errorf("package cache: reopen %s: %w", sha, err)
	}
	final := filepath.Join(c.cfg.Dir, sha)
	os.RemoveAll(final)
	if err := os.Rename(tree, final); err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	sz := dirSize(final)
	c.mu.Lock()
	c.tick++
	c.entries[sha] = &entry{sha: sha, dir: final, pkg: pkg, size: sz, used: c.tick}
	c.total += sz
	c.mu.Unlock()
	return nil
}

func (c *Cache) download(ctx context.Context, sha, dst string) (int64, error) {
	rc, err := c.store.Get(ctx, objstore.ProblemKey(sha))
	if err != nil {
		return 0, fmt.Errorf("package cache: %w", err)
	}
	defer rc.Close()
	w, err := os.Create(dst)
	if err != nil {
		return 0, fmt.Errorf("package cache: %w", err)
	}
	defer w.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(rc, c.lim.MaxZipBytes+1))
	if err != nil {
		return 0, fmt.Errorf("package cache: download %s: %w", sha, err)
	}
	if n > c.lim.MaxZipBytes {
		return 0, fmt.Errorf("package cache: %s is larger than %d bytes", sha, c.lim.MaxZipBytes)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		return 0, fmt.Errorf("package cache: %s: %w (got %s)", sha, ErrHashMismatch, got)
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("package cache: %w", err)
	}
	return n, nil
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
