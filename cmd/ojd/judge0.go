package main

import (
	"context"

	"oj/core/api"
	j0api "oj/core/api/judge0"
	"oj/core/judge/lang"
	"oj/core/judge0"
	"oj/core/store"
)

// mountJudge0 mounts the Judge0 face on the API server when judge0.enabled: under
// judge0.prefix, lent the server's tokens, run limits and waits.
func mountJudge0(srv *api.Server, d *deps, langs *lang.Set) {
	if !d.cfg.Judge0.Enabled {
		return
	}
	log := d.log.With("component", "judge0")
	face := j0api.New(d.cfg.Judge0, j0api.Deps{Host: srv, DB: d.db, Languages: langs, Runs: d.cfg.Runs, Log: log,
		// The names the live workers announced: /languages then says which version judges.
		Versions: func(ctx context.Context) map[string]string {
			names, err := store.LanguageNames(ctx, d.db, store.WorkerLiveWithin)
			if err != nil {
				log.Warn("judge0: language names of the live workers unreadable; named without versions", "err", err)
				return nil
			}
			return names
		}})
	srv.Mount(face.Prefix(), face.Handler())
}

// facesCallbackBody renders a run's callback for the dispatcher: a run made through the
// Judge0 face as Judge0 PUTs it (its default fields, base64), any other as
// runCallbackBody does.
func facesCallbackBody(langs *lang.Set) func(context.Context, *store.Submission) (string, []byte, error) {
	return func(ctx context.Context, run *store.Submission) (string, []byte, error) {
		if run.Origin == store.OriginJudge0 {
			return judge0.CallbackBody(run, judge0.NewLanguages(langs, nil))
		}
		return runCallbackBody(ctx, run)
	}
}
