package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
)

// Text bound for PostgreSQL that a contestant or a problem setter can influence (checker
// and case messages, compile output, judge errors, causes) passes through Text or
// jsonValue inside this package, so no caller has to remember it. PostgreSQL's text and
// jsonb cannot hold a NUL byte (SQLSTATE 22021 for text, 22P05 for the \u0000 escape in
// jsonb) nor invalid UTF-8: a message echoing a contestant's NUL would otherwise poison
// every statement it is batched into.

// replacement stands in for what PostgreSQL cannot store: visible, and valid UTF-8.
const replacement = "\uFFFD"

// Text returns s with NUL bytes and invalid UTF-8 sequences replaced by U+FFFD. It scans
// first and copies only when s needs it, so clean text (nearly all of it) costs one pass.
func Text(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, replacement), "\x00", replacement)
}

// escapedNUL is how encoding/json writes a NUL character.
var escapedNUL = []byte(`\u0000`)

// jsonValue encodes v for a jsonb column. encoding/json already replaces invalid UTF-8
// with U+FFFD; the \u0000 escape it writes for NUL is what jsonb refuses, so each one
// (not a literal backslash followed by "u0000") becomes \ufffd.
func jsonValue(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, unstorable(err)
	}
	if !bytes.Contains(b, escapedNUL) {
		return b, nil
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			out = append(out, b[i])
			continue
		}
		// An escape: copy it whole, so an escaped backslash is never read as the start of
		// another escape.
		if bytes.HasPrefix(b[i:], escapedNUL) {
			out = append(out, `\ufffd`...)
			i += len(escapedNUL) - 1
			continue
		}
		out = append(out, b[i])
		if i+1 < len(b) {
			out = append(out, b[i+1])
			i++
		}
	}
	return out, nil
}

// ErrUnstorable marks a value that can never be stored, whatever the retries: PostgreSQL
// refused it with a data exception (SQLSTATE class 22) or an integrity constraint
// violation (class 23), or it could not even be encoded (a NaN score in JSON).
var ErrUnstorable = errors.New("unstorable value")

type unstorableError struct{ err error }

func (e unstorableError) Error() string   { return e.err.Error() }
func (e unstorableError) Unwrap() []error { return []error{e.err, ErrUnstorable} }

func unstorable(err error) error { return unstorableError{err} }

// Permanent reports whether err is a refusal that retrying cannot change (see
// ErrUnstorable). Everything else — connection errors, timeouts, a server shutting down,
// serialization failures — is transient: the same statement may succeed later.
func Permanent(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnstorable) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return strings.HasPrefix(pg.Code, "22") || strings.HasPrefix(pg.Code, "23")
	}
	return false
}
