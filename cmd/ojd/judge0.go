package main

import (
	"oj/core/api"
	j0api "oj/core/api/judge0"
	"oj/core/judge/lang"
)

// mountJudge0 mounts the Judge0 face on the API server when judge0.enabled: under
// judge0.prefix, lent the server's tokens, run limits and waits.
func mountJudge0(srv *api.Server, d *deps, langs *lang.Set) {
	if !d.cfg.Judge0.Enabled {
		return
	}
	face := j0api.New(d.cfg.Judge0, j0api.Deps{Host: srv, DB: d.db, Languages: langs, Runs: d.cfg.Runs,
		Log: d.log.With("component", "judge0")})
	srv.Mount(face.Prefix(), face.Handler())
}
