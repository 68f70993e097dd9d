package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"oj/core/wire"
)

// maxIdempotencyKey bounds the Idempotency-Key header.
const maxIdempotencyKey = 200

// submitBodyLimit bounds a submit body: JSON may escape each source byte into up to six
// (\u00XX), plus room for the other fields.
func submitBodyLimit(maxSource int) int64 { return int64(maxSource)*6 + 16<<10 }

// decodeSubmit reads and validates the shape of a submit body: one JSON object with
// known fields only, nothing after it, a non-empty source of at most maxSource bytes,
// and text PostgreSQL can store. It never touches storage; the fuzz target
// FuzzDecodeSubmit drives it.
func decodeSubmit(r io.Reader, maxSource int) (wire.SubmitRequest, *apiError) {
	var req wire.SubmitRequest
	body, err := io.ReadAll(r)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			// Over submitBodyLimit: the source is over its limit, whatever its escapes.
			return req, tooLargeError("source", int64(maxSource), keyMaxSource)
		}
		return req, errorf(http.StatusBadRequest, codeBadRequest, "read body: %v", err)
	}
	if aerr := decodeStrict(body, &req); aerr != nil {
		return req, aerr
	}
	return req, checkSubmitFields(req, maxSource)
}

// decodeStrict decodes body, one JSON object, into v: unknown fields, data after the
// object, invalid UTF-8 and unpaired surrogate escapes are 400 malformed (encoding/json
// quietly turns the last two into U+FFFD: refused instead of judging a source other than
// the one sent).
func decodeStrict(body []byte, v any) *apiError {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(http.StatusBadRequest, codeMalformed, "malformed JSON body: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errorf(http.StatusBadRequest, codeMalformed, "malformed JSON body: data after the object")
	}
	if !utf8.Valid(body) {
		return errorf(http.StatusBadRequest, codeMalformed, "malformed JSON body: not valid UTF-8 (at byte %d)", invalidUTF8At(body))
	}
	if at := loneSurrogate(body); at >= 0 {
		return errorf(http.StatusBadRequest, codeMalformed, "malformed JSON body: %s at byte %d is half of a UTF-16 surrogate pair", body[at:at+6], at)
	}
	return nil
}

// checkSubmitFields refuses a decoded submit body whose fields PostgreSQL could not store
// (NUL) or that say nothing to judge.
func checkSubmitFields(req wire.SubmitRequest, maxSource int) *apiError {
	for _, f := range []struct{ name, value string }{{"problem_id", req.ProblemID}, {"language", req.Language}, {"source", req.Source}} {
		if i := strings.IndexByte(f.value, 0); i >= 0 {
			return errorf(http.StatusBadRequest, codeBadRequest, "%s: holds a NUL character (U+0000) at byte %d; text may not contain NUL", f.name, i)
		}
	}
	switch {
	case req.ProblemID == "":
		return errorf(http.StatusBadRequest, codeBadRequest, "problem_id: empty")
	case req.Language == "":
		return errorf(http.StatusBadRequest, codeUnknownLanguage, "language: empty")
	case req.Source == "":
		return errorf(http.StatusBadRequest, codeEmptySource, "source: empty")
	case len(req.Source) > maxSource:
		return errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "source is %d bytes, over the limit of %d bytes (%s)",
			len(req.Source), maxSource, keyMaxSource)
	case req.WaitMS != nil && *req.WaitMS < 0:
		return errorf(http.StatusBadRequest, codeBadRequest, "wait_ms: must not be negative")
	}
	return checkMetadata(req.Metadata)
}

// checkIdempotencyKey refuses a key PostgreSQL could not store or that no client means:
// net/http already refuses NUL and most control bytes in a header, but lets bytes over
// 0x7f through, which need not be UTF-8.
func checkIdempotencyKey(key string) *apiError {
	if len(key) > maxIdempotencyKey {
		return errorf(http.StatusBadRequest, codeBadRequest, "Idempotency-Key: longer than %d bytes", maxIdempotencyKey)
	}
	if !utf8.ValidString(key) || strings.IndexFunc(key, unicode.IsControl) >= 0 {
		return errorf(http.StatusBadRequest, codeBadRequest, "Idempotency-Key: must be UTF-8 text without control characters")
	}
	return nil
}
