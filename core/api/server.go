// Package api is ojd's HTTP face: the public submission API, the admin endpoints that
// ojctl drives, health and metrics, plus the wire types and a Go client.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
)

// Config configures the HTTP server.
type Config struct {
	Listen          string        `mapstructure:"listen"`
	ReadTimeout     time.Duration `mapstructure:"read_timeout"`
	ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Listen: "127.0.0.1:8080", ReadTimeout: 30 * time.Second, ShutdownTimeout: 10 * time.Second}
}

// Validate names the first bad key.
func (c Config) Validate() error {
	switch {
	case c.Listen == "":
		return errors.New("api.listen: empty")
	case c.ReadTimeout <= 0:
		return errors.New("api.read_timeout: must be positive")
	case c.ShutdownTimeout <= 0:
		return errors.New("api.shutdown_timeout: must be positive")
	}
	return nil
}

// Server serves the HTTP API.
type Server struct {
	cfg      Config
	db       *pgxpool.Pool
	rdb      redis.UniversalClient
	gatherer prometheus.Gatherer
	log      *slog.Logger
}

// New returns a server; gatherer is what /metrics exposes.
func New(cfg Config, db *pgxpool.Pool, rdb redis.UniversalClient, gatherer prometheus.Gatherer, log *slog.Logger) *Server {
	return &Server{cfg: cfg, db: db, rdb: rdb, gatherer: gatherer, log: log}
}

// Handler returns the routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}))
	return mux
}

// readyz answers 200 only when PostgreSQL and Redis both answer.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	checks := map[string]string{"postgres": "ok", "redis": "ok"}
	status := http.StatusOK
	if err := s.db.Ping(ctx); err != nil {
		checks["postgres"], status = err.Error(), http.StatusServiceUnavailable
	}
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		checks["redis"], status = err.Error(), http.StatusServiceUnavailable
	}
	writeJSON(w, status, checks)
}

// Run serves until ctx ends, then shuts down within shutdown_timeout.
func (s *Server) Run(ctx context.Context) error {
	srv := &http.Server{Addr: s.cfg.Listen, Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: s.cfg.ReadTimeout}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	s.log.Info("api listening", "addr", s.cfg.Listen)
	select {
	case err := <-errc:
		return fmt.Errorf("api: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("api shutdown: %w", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
