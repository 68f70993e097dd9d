package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"oj/core/api/wire"
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
