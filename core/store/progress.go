package store

import (
	"context"
	"fmt"
	"strconv"

	"oj/core/job"
)

// progressMessageBytes bounds a case message in a progress notification (NOTIFY payloads
// stop at 8000 bytes; the finalize stores the whole message).
const progressMessageBytes = 512

// NotifyCase announces one case's result of attempt on channel oj_progress as
// "<id> <attempt> <case JSON>". It is advisory and outside any transaction: listeners
// (the API's event streams) show progress, and the fenced finalize stays the only result.
func NotifyCase(ctx context.Context, db DB, id string, attempt int, c job.CaseResult) error {
	if len(c.Message) > progressMessageBytes {
		c.Message = c.Message[:progressMessageBytes]
	}
	if len(c.CheckerMessage) > progressMessageBytes {
		c.CheckerMessage = c.CheckerMessage[:progressMessageBytes]
	}
	// jsonValue: the payload is text, so no NUL escapes (the cuts above may split a rune;
	// encoding/json mends that).
	b, err := jsonValue(toCaseJSON(c))
	if err != nil {
		return fmt.Errorf("notify case: %w", err)
	}
	payload := id + " " + strconv.Itoa(attempt) + " " + string(b)
	if _, err := db.Exec(ctx, `SELECT pg_notify('oj_progress', $1)`, payload); err != nil {
		return fmt.Errorf("notify case: %w", err)
	}
	return nil
}
