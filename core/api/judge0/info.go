package judge0

import (
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"

	"oj/core/job"
	j0 "oj/core/judge0"
	"oj/core/store"
)

// Version is what GET /about reports as Judge0's version: the API this face speaks.
const Version = "1.13.1"

// listLanguages is GET /languages: the Judge0 ids that reach a configured language.
func (f *Face) listLanguages(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, capability); err != nil {
		return
	}
	out := []j0.LanguageBrief{}
	for _, l := range f.languages(r.Context()).All() {
		out = append(out, j0.LanguageBrief{ID: l.ID, Name: l.Name})
	}
	writeJSON(w, http.StatusOK, out)
}

// allLanguages is GET /languages/all: the same, each with is_archived (oj archives
// none: an id oj does not serve is not listed).
func (f *Face) allLanguages(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, capability); err != nil {
		return
	}
	no := false
	out := []j0.LanguageBrief{}
	for _, l := range f.languages(r.Context()).All() {
		out = append(out, j0.LanguageBrief{ID: l.ID, Name: l.Name, IsArchived: &no})
	}
	writeJSON(w, http.StatusOK, out)
}

// showLanguage is GET /languages/{id}: 404 with an empty body for an id oj does not
// serve, as Judge0 answers an unknown one.
func (f *Face) showLanguage(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, capability); err != nil {
		return
	}
	id, err := strconv.Atoi(r.PathValue("id"))
	l, ok := f.languages(r.Context()).Get(id)
	if err != nil || !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	d := j0.LanguageDetail{ID: l.ID, Name: l.Name, SourceFile: l.OJ.SourceFile, RunCmd: strings.Join(l.OJ.Run, " ")}
	if l.OJ.Compiled() {
		c := strings.Join(l.OJ.Compile, " ")
		d.CompileCmd = &c
	}
	writeJSON(w, http.StatusOK, d)
}

// statuses is GET /statuses.
func (f *Face) statuses(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, capability); err != nil {
		return
	}
	writeJSON(w, http.StatusOK, j0.Statuses())
}

// about is GET /about.
func (f *Face) about(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, capability); err != nil {
		return
	}
	writeJSON(w, http.StatusOK, j0.Ordered{{Key: "version", Value: Version}, {Key: "homepage", Value: "https://judge0.com"},
		{Key: "source_code", Value: "https://github.com/judge0/judge0"},
		{Key: "maintainer", Value: "oj: a Judge0 CE-compatible API on oj's core (docs/judge0.md)"}})
}

// configInfo is GET /config_info: Judge0's keys with what oj enforces.
func (f *Face) configInfo(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, capability); err != nil {
		return
	}
	writeJSON(w, http.StatusOK, f.limits.ConfigInfo(true))
}

// systemInfo is GET /system_info (admin): the API host's CPUs and memory, under the
// keys Judge0 reads from lscpu and free.
func (f *Face) systemInfo(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, admin); err != nil {
		return
	}
	out := j0.Ordered{{Key: "Architecture", Value: runtime.GOARCH}, {Key: "CPU(s)", Value: strconv.Itoa(runtime.NumCPU())}}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && (k == "MemTotal" || k == "SwapTotal") {
				name := map[string]string{"MemTotal": "Mem", "SwapTotal": "Swap"}[k]
				out = append(out, j0.KV{Key: name, Value: strings.TrimSpace(v)})
			}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// workers is GET /workers (admin): oj's run lane as Judge0's one queue — runs waiting
// (size), the run slots of the live workers that claim (available), runs running
// (working), free slots (idle), the slots of live workers that do not claim now
// (paused: draining, disabled, quarantined) and runs that died (failed).
func (f *Face) workers(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, admin); err != nil {
		return
	}
	counts, err := store.RunCounts(r.Context(), f.d.DB)
	if err != nil {
		f.unavailable(w, "count runs", err)
		return
	}
	rows, err := store.ListWorkers(r.Context(), f.d.DB)
	if err != nil {
		f.unavailable(w, "list workers", err)
		return
	}
	now := f.d.Now()
	var available, paused int
	for _, wr := range rows {
		if wr.StoppedAt != nil || now.Sub(wr.LastSeen) > store.WorkerLiveWithin {
			continue
		}
		if wr.State.Claims() {
			available += wr.Lanes[string(job.LaneRun)]
		} else {
			paused += wr.Lanes[string(job.LaneRun)]
		}
	}
	working := int(counts[job.StateRunning])
	writeJSON(w, http.StatusOK, []j0.Ordered{{{Key: "queue", Value: string(job.LaneRun)},
		{Key: "size", Value: counts[job.StateQueued]}, {Key: "available", Value: available},
		{Key: "idle", Value: max(available-working, 0)}, {Key: "working", Value: working},
		{Key: "paused", Value: paused}, {Key: "failed", Value: counts[job.StateDead]}}})
}

// destroy is DELETE /submissions/{token} (admin). Judge0 CE deletes only when
// enable_submission_delete is set, which is off by default; oj keeps a run for its
// retention (runs.retention) and deletes it then, so the answer is Judge0's own refusal.
func (f *Face) destroy(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, admin); err != nil {
		return
	}
	writeJSON(w, http.StatusBadRequest, errorBody("delete not allowed"))
}
