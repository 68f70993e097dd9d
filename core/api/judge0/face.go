// Package judge0 serves Judge0 CE's submissions API on oj's core: the HTTP half of
// core/judge0. A Judge0 submission becomes one of oj's runs (store.SubmitRun: the
// row, its outbox row and the Run lane's durable path), its token the run's random
// public token; reads render the stored run in Judge0's shapes. The API server mounts
// it (api.Server.Mount) and lends it its tokens, run limits and waits (Host); nothing
// here judges, queues or stores by another path.
package judge0

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/job"
	"oj/core/judge/lang"
	j0 "oj/core/judge0"
	"oj/core/store"
)

// Host is what the API server lends the face (core/api's face.go).
type Host interface {
	TokenFor(r *http.Request, secret string) (*store.Token, error)
	AdmitRun(tok *store.Token) (bool, time.Duration)
	RunBounds(tok *store.Token) (maxQueued int64, maxLive int)
	MaxAttempts() int
	MaxSourceBytes() int
	WaitTerminal(ctx context.Context, id string, d time.Duration) (*store.Submission, error)
	NoteSubmission(ctx context.Context, id string)
	TraceID(ctx context.Context) string
}

// Deps are what the face works with.
type Deps struct {
	Host      Host
	DB        *pgxpool.Pool
	Languages *lang.Set
	// Versions are the language names live workers announced, with the versions their
	// self-checks detected, by oj language id (may be nil): shown in the Judge0 names.
	Versions func(ctx context.Context) map[string]string
	Runs     job.RunsConfig
	Log      *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Face is the Judge0 API.
type Face struct {
	cfg    Config
	d      Deps
	limits j0.Limits
	bounds j0.Bounds
}

// New returns the face.
func New(cfg Config, d Deps) *Face {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	maxQueued, _ := d.Host.RunBounds(&store.Token{})
	return &Face{cfg: cfg, d: d, limits: j0.NewLimits(d.Runs, int(maxQueued)),
		bounds: j0.Bounds{MaxSourceBytes: d.Host.MaxSourceBytes(), MaxStdinBytes: d.Runs.MaxStdinBytes,
			OutputBytes: d.Runs.OutputBytes}}
}

// Prefix is where the face is to be mounted.
func (f *Face) Prefix() string { return f.cfg.Prefix }

// languages resolves the Judge0 ids against the configured languages now (the versions
// workers detected change as workers come and go).
func (f *Face) languages(ctx context.Context) *j0.Languages {
	var v map[string]string
	if f.d.Versions != nil {
		v = f.d.Versions(ctx)
	}
	return j0.NewLanguages(f.d.Languages, v)
}

// Handler is the face's routes, behind CORS. Paths are relative to the prefix.
func (f *Face) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /submissions", f.create)
	mux.HandleFunc("POST /submissions/batch", f.batchCreate)
	mux.HandleFunc("GET /submissions/batch", f.batchShow)
	mux.HandleFunc("GET /submissions/{token}", f.show)
	mux.HandleFunc("DELETE /submissions/{token}", f.destroy)
	mux.HandleFunc("GET /languages", f.listLanguages)
	mux.HandleFunc("GET /languages/all", f.allLanguages)
	mux.HandleFunc("GET /languages/{id}", f.showLanguage)
	mux.HandleFunc("GET /statuses", f.statuses)
	mux.HandleFunc("GET /about", f.about)
	mux.HandleFunc("GET /config_info", f.configInfo)
	mux.HandleFunc("GET /system_info", f.systemInfo)
	mux.HandleFunc("GET /workers", f.workers)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) })
	return f.cors(mux)
}
