package main

import (
	"context"
	"encoding/json"

	"oj/core/render"
	"oj/core/store"
)

// runCallbackBody renders the body of a run's callback (dispatch.Config.RunCallbackBody):
// the run as GET /api/v1/runs/{id} shows it to an admin. A face with a shape of its
// own (run.Origin) renders its runs here its own way.
func runCallbackBody(_ context.Context, run *store.Submission) (string, []byte, error) {
	body, err := json.Marshal(render.Run(run, true))
	return "application/json", body, err
}
