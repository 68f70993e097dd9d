// Package objstore stores problem packages and run artefacts (compile logs, output
// excerpts) by key: on the local filesystem (the default) or in S3/MinIO. Problem
// packages are content-addressed: problems/<sha256>.zip.
package objstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrNotFound is returned by Get and Stat for a missing key.
var ErrNotFound = errors.New("object not found")

// Info describes a stored object.
type Info struct {
	Size int64
}

// Store is an object store.
type Store interface {
	// Put stores size bytes from r under key, replacing any object there; readers never
	// see a partial object.
	Put(ctx context.Context, key string, r io.Reader, size int64) error
	// Get opens the object; ErrNotFound if absent.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Stat describes the object; ErrNotFound if absent.
	Stat(ctx context.Context, key string) (Info, error)
	// Exists reports whether key holds an object.
	Exists(ctx context.Context, key string) (bool, error)
}

// ProblemKey is the key of the problem package with the given sha256 (hex).
func ProblemKey(sha string) string { return "problems/" + sha + ".zip" }

// RunKey is the key of an artefact of one attempt of a submission
// (runs/<submission>/<attempt>/<name>).
func RunKey(submission string, attempt int, name string) string {
	return fmt.Sprintf("runs/%s/%d/%s", submission, attempt, name)
}

// Names of an attempt's artefacts under RunKey.
const (
	CompileLogFile = "compile.log" // the compiler's output, as text
	CasesFile      = "cases.json"  // RunCases
)

// RunCases is an attempt's cases.json: what each case's programs wrote, each excerpt
// bounded by judge.excerpt_bytes. The worker writes it; the API reads it back (as
// untrusted input: the store is not the worker).
type RunCases struct {
	Cases []RunCase `json:"cases"`
}

// RunCase is one case of RunCases. Checker is the checker's or interactor's whole
// message (admins only).
type RunCase struct {
	Index   int    `json:"index"`
	Verdict string `json:"verdict"`
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
	Checker string `json:"checker,omitempty"`
}

// SHA256Hex returns the hex sha256 of b.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ValidSHA256 reports whether s is 64 lowercase hex digits.
func ValidSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// PutProblem stores a (validated) package zip content-addressed and returns its sha256.
// Storing the same bytes twice is a no-op.
func PutProblem(ctx context.Context, s Store, zip []byte) (string, error) {
	sha := SHA256Hex(zip)
	key := ProblemKey(sha)
	ok, err := s.Exists(ctx, key)
	if err != nil {
		return "", fmt.Errorf("put problem: %w", err)
	}
	if !ok {
		if err := s.Put(ctx, key, bytes.NewReader(zip), int64(len(zip))); err != nil {
			return "", fmt.Errorf("put problem: %w", err)
		}
	}
	return sha, nil
}

// TruncationMark ends an excerpt that was cut.
const TruncationMark = "\n…[truncated]\n"

// Excerpt returns at most max bytes of b, marked when cut.
func Excerpt(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	out := make([]byte, 0, max+len(TruncationMark))
	out = append(out, b[:max]...)
	return append(out, TruncationMark...)
}

// PutBounded stores at most max bytes of b under key (see Excerpt).
func PutBounded(ctx context.Context, s Store, key string, b []byte, max int) error {
	b = Excerpt(b, max)
	return s.Put(ctx, key, bytes.NewReader(b), int64(len(b)))
}

// checkKey refuses keys that could escape a root or confuse a backend.
func checkKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") ||
		strings.Contains(key, "\\") || strings.ContainsRune(key, 0) {
		return fmt.Errorf("bad object key %q", key)
	}
	for _, p := range strings.Split(key, "/") {
		if p == "" || p == "." || p == ".." || strings.HasPrefix(p, ".tmp-") {
			return fmt.Errorf("bad object key %q", key)
		}
	}
	return nil
}
