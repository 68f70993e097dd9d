package judge0

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/google/uuid"

	j0 "oj/core/judge0"
	"oj/core/store"
)

// bodyLimit bounds a create's body: a batch of sources, inputs, expected outputs and
// zips, each escaped or base64 (at most six bytes per byte in JSON).
func (f *Face) bodyLimit(n int) int64 {
	per := int64(f.bounds.MaxSourceBytes)*6 + int64(f.bounds.MaxStdinBytes)*12 +
		int64(f.limits.MaxExtractSize)*1024*2 + 64<<10
	return per * int64(n)
}

// readBody reads a JSON body within limit; false with the answer written (413, 400).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		writeJSON(w, http.StatusRequestEntityTooLarge, errorBody(fmt.Sprintf("request body is over %d bytes", limit)))
		return nil, false
	case err != nil:
		writeJSON(w, http.StatusBadRequest, errorBody("read body: "+err.Error()))
		return nil, false
	case !json.Valid(body):
		writeJSON(w, http.StatusBadRequest, errorBody("the body is not valid JSON"))
		return nil, false
	}
	return body, true
}

// refusal is a run the core refused before storing it: the status and message.
type refusal struct {
	status     int
	msg        string
	retryAfter time.Duration
}

// submit admits, validates and stores one Judge0 submission: its run id and token, the
// 422 errors, or a refusal.
func (f *Face) submit(ctx context.Context, tok *store.Token, raw json.RawMessage, b64 bool, langs *j0.Languages, traceID string) (id, token string, errs *j0.Errors, ref *refusal) {
	errs = &j0.Errors{}
	req := j0.ParseRequest(raw, b64, errs)
	plan := j0.Validate(req, langs, f.limits, f.bounds, errs)
	if !errs.Empty() {
		return "", "", errs, nil
	}
	if ok, wait := f.d.Host.AdmitRun(tok); !ok {
		return "", "", nil, &refusal{http.StatusTooManyRequests, "too many submissions (api.limits.run_rate); retry after the Retry-After delay", wait}
	}
	maxQueued, maxLive := f.d.Host.RunBounds(tok)
	token = uuid.NewString()
	id, err := store.SubmitRun(ctx, f.d.DB, store.NewRun{OwnerID: &tok.ID, Language: plan.Language.OJ.ID,
		Source: plan.Source, Spec: plan.Spec, MaxAttempts: f.d.Host.MaxAttempts(), TraceID: traceID,
		MaxQueued: maxQueued, MaxLive: maxLive, PublicToken: token, Callback: plan.Callback, Origin: store.OriginJudge0})
	if be := (*store.RunsBacklogError)(nil); errors.As(err, &be) {
		return "", "", nil, &refusal{http.StatusServiceUnavailable, "queue is full", 5 * time.Second}
	}
	if le := (*store.RunsLiveError)(nil); errors.As(err, &le) {
		return "", "", nil, &refusal{http.StatusTooManyRequests, fmt.Sprintf(
			"you have %d submissions queued or running, the most this token may have (%d); retry when one has finished",
			le.Queued+le.Running, le.Limit), 2 * time.Second}
	}
	if err != nil {
		f.d.Log.Warn("judge0: submit", "err", err)
		return "", "", nil, &refusal{http.StatusServiceUnavailable, "the database is unavailable; retry", 2 * time.Second}
	}
	return id, token, nil, nil
}

// create is POST /submissions: 201 {token}, or with wait=true the submission as it is
// once ended or when judge0.wait_timeout is over.
func (f *Face) create(w http.ResponseWriter, r *http.Request) {
	tok, err := f.authorize(w, r, submitter)
	if err != nil {
		return
	}
	fields, err := j0.ParseFields(r.URL.Query().Get("fields"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
		return
	}
	b64, wait := boolParam(r, "base64_encoded"), boolParam(r, "wait")
	body, ok := readBody(w, r, f.bodyLimit(1))
	if !ok {
		return
	}
	langs := f.languages(r.Context())
	id, token, errs, ref := f.submit(r.Context(), tok, body, b64, langs, f.d.Host.TraceID(r.Context()))
	switch {
	case errs != nil:
		writeJSON(w, http.StatusUnprocessableEntity, errs)
		return
	case ref != nil:
		retryAfter(w, ref.retryAfter.Seconds())
		writeJSON(w, ref.status, errorBody(ref.msg))
		return
	}
	f.d.Host.NoteSubmission(r.Context(), id)
	if !wait {
		writeJSON(w, http.StatusCreated, map[string]string{"token": token})
		return
	}
	sub, err := f.d.Host.WaitTerminal(r.Context(), id, f.cfg.WaitTimeout)
	if err != nil {
		if r.Context().Err() == nil {
			writeJSON(w, http.StatusCreated, map[string]string{"token": token})
		}
		return
	}
	out, err := j0.Render(sub, token, langs, fields, b64)
	if err != nil {
		writeJSON(w, http.StatusCreated, j0.Ordered{{Key: "error", Value: err.Error()}, {Key: "token", Value: token}})
		return
	}
	writeJSON(w, http.StatusCreated, out)
}

// batchCreate is POST /submissions/batch: up to max_submission_batch_size submissions,
// each stored on its own; the answer holds a {token} or the element's errors in the
// request's order, 201 when one at least was stored, 422 otherwise. As in Judge0,
// wait and fields do not apply.
func (f *Face) batchCreate(w http.ResponseWriter, r *http.Request) {
	tok, err := f.authorize(w, r, submitter)
	if err != nil {
		return
	}
	body, ok := readBody(w, r, f.bodyLimit(f.limits.MaxBatch))
	if !ok {
		return
	}
	var batch struct {
		Submissions []json.RawMessage `json:"submissions"`
	}
	_ = json.Unmarshal(body, &batch)
	switch n := len(batch.Submissions); {
	case n > f.limits.MaxBatch:
		writeJSON(w, http.StatusBadRequest, errorBody(fmt.Sprintf("number of submissions in a batch should be less than or equal to %d", f.limits.MaxBatch)))
		return
	case n == 0:
		writeJSON(w, http.StatusBadRequest, errorBody("there should be at least one submission in a batch"))
		return
	}
	b64 := boolParam(r, "base64_encoded")
	langs := f.languages(r.Context())
	out := make([]any, 0, len(batch.Submissions))
	stored := false
	for _, raw := range batch.Submissions {
		_, token, errs, ref := f.submit(r.Context(), tok, raw, b64, langs, f.d.Host.TraceID(r.Context()))
		switch {
		case errs != nil:
			out = append(out, errs)
		case ref != nil:
			out = append(out, map[string][]string{"submission": {ref.msg}})
		default:
			out = append(out, map[string]string{"token": token})
			stored = true
		}
	}
	status := http.StatusUnprocessableEntity
	if stored {
		status = http.StatusCreated
	}
	writeJSON(w, status, out)
}
