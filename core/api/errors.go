package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"oj/core/wire"
)

// Error codes of the API's error answers.
const (
	codeBadRequest      = "bad_request"
	codeMalformed       = "malformed_json"
	codeUnknownLanguage = "unknown_language"
	codeEmptySource     = "empty_source"
	codeTooLarge        = "too_large"
	codeUnauthorized    = "unauthorized"
	codeForbidden       = "forbidden"
	codeNotFound        = "not_found"
	codeIdempotency     = "idempotency_key_reused"
	codeRateLimited     = "rate_limited"
	codeBacklog         = "backlog_full"
	codeTooManyLive     = "too_many_live"
	codeTooManyStreams  = "too_many_streams"
	codeGone            = "gone"
	codeUnavailable     = "unavailable"
	codeConflict        = "conflict"
	codeInvalidPackage  = "invalid_package"
	codeInternal        = "internal"
	// codeProvisional refuses a submit to a problem whose time limit waits for a verify.
	codeProvisional = "limits_provisional"
)

// apiError is an answer that went wrong: status, code, message, and for 429 and 503 how
// long to wait.
type apiError struct {
	status     int
	code       string
	msg        string
	retryAfter time.Duration
	cause      error // logged, never shown
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.msg) }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, msg: fmt.Sprintf(format, args...)}
}

// unavailable is the answer when PostgreSQL (or Redis) could not do its part: 503 and a
// Retry-After, never a 2xx (invariant 2).
func unavailable(what string, cause error) *apiError {
	return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable,
		msg: what + ": storage unavailable, retry later", retryAfter: 2 * time.Second, cause: cause}
}

// retryAfterSeconds rounds a wait up to whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// writeError writes the error answer and records the cause for the request log.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{status: http.StatusInternalServerError, code: codeInternal, msg: "internal error", cause: err}
	}
	if info := infoFrom(r.Context()); info != nil {
		info.errCode = ae.code
		if ae.cause != nil {
			info.err = ae.cause
		}
	}
	if ae.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(ae.retryAfter)))
	}
	writeJSON(w, ae.status, wire.Error{Error: wire.ErrorBody{Code: ae.code, Message: ae.msg}})
}

// writeJSON writes v as the answer with status. v is encoded before the header goes out:
// a value JSON cannot hold (a NaN or infinite number read from an old row) makes the
// answer a 500 with the error shape, logged and counted by the middleware, never a 2xx
// with an empty or cut body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		if sw, ok := w.(*statusWriter); ok {
			sw.encodeErr = err
		}
		buf.Reset()
		_ = json.NewEncoder(&buf).Encode(wire.Error{Error: wire.ErrorBody{Code: codeInternal,
			Message: "internal error: the answer holds a value JSON cannot represent"}})
		status = http.StatusInternalServerError
		w.Header().Del("Retry-After")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
