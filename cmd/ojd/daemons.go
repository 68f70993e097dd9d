package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api"
	"oj/core/build"
	"oj/core/clock"
	"oj/core/dispatch"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
	"oj/core/worker"
)

// daemon is one of the long-running parts; ojd all runs several in one process. A part
// calls ready once it can do its work (the worker: once its self-check passed), and
// before it blocks for good.
type daemon func(ctx context.Context, d *deps, ready func()) error

// apiDaemon serves the HTTP API on ln, bound already by runDaemons. It needs the language
// set (a submission's lane is its language's) and the object store (problem uploads),
// both from the judge's config. When ctx ends it drains — ln stays open, new requests
// get 503 with Retry-After — until others is closed: the process's other parts stopped.
func apiDaemon(ln net.Listener, others <-chan struct{}) daemon {
	return func(ctx context.Context, d *deps, ready func()) error {
		langs, err := lang.Load(d.cfg.Judge.LanguagesFile)
		if err != nil {
			ln.Close()
			return fmt.Errorf("api: %w", err)
		}
		objects, err := objstore.Open(ctx, d.cfg.Storage)
		if err != nil {
			ln.Close()
			return fmt.Errorf("api: storage: %w", err)
		}
		builds := build.NewClient(d.rdb, d.streams.Keys, d.cfg.API.ToolBuildTimeout)
		ready() // the address is bound: connections wait in its backlog for Serve
		cfg := d.cfg.API
		cfg.Webhooks = d.cfg.Webhooks
		cfg.Runs = d.cfg.Runs
		srv := api.New(cfg, api.Deps{DB: d.db, Streams: d.streams, Languages: langs, Objects: objects,
			PackageLimits: d.cfg.Judge.PackageLimits, Builds: builds, Registerer: d.reg, Gatherer: d.reg,
			Clock: clock.Real{}, Log: d.log.With("component", "api")})
		mountJudge0(srv, d, langs)
		return srv.ServeDraining(ctx, ln, others)
	}
}

// bindAPI binds the API's address before any part starts, so a busy port fails the start
// (non-zero exit, nothing logged as listening).
func bindAPI(cfg *Config) (net.Listener, error) {
	ln, err := api.Listen(cfg.API.Listen)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	return ln, nil
}

// writeAddrFile writes addr and a newline to path through a rename, so a reader never
// sees a half-written address.
func writeAddrFile(path, addr string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(addr+"\n"), 0o644); err != nil {
		return fmt.Errorf("--addr-file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("--addr-file: %w", err)
	}
	return nil
}

func newDispatcher(d *deps) *dispatch.Dispatcher {
	cfg := d.cfg.Dispatcher
	cfg.Events = d.cfg.Events
	cfg.Webhooks = d.cfg.Webhooks
	cfg.Runs = d.cfg.Runs
	langs, err := lang.Load(d.cfg.Judge.LanguagesFile)
	if err != nil {
		// The API refuses to start on this file; callbacks still go out (the languages
		// only name the language, which a Judge0 callback's fields do not hold).
		d.log.Warn("dispatcher: languages file unreadable, the default languages name callbacks' languages", "err", err)
		langs = lang.Default()
	}
	cfg.RunCallbackBody = facesCallbackBody(langs)
	return dispatch.New(cfg, d.db, d.streams, clock.Real{}, d.log.With("component", "dispatcher"), d.dispatchMetrics)
}

func runDispatcher(ctx context.Context, d *deps, ready func()) error {
	ready()
	return newDispatcher(d).Run(ctx)
}

func runWorker(ctx context.Context, d *deps, ready func()) error {
	judge, check, closeJudge, err := buildJudge(ctx, d)
	if err != nil {
		return err
	}
	defer closeJudge()
	wcfg := d.cfg.Worker
	if wcfg.Languages, err = workerLanguages(wcfg.Languages, judge); err != nil {
		return err
	}
	wcfg.LanguageNames = map[string]string{}
	names := judge.Names()
	for _, id := range wcfg.Languages {
		wcfg.LanguageNames[id] = names[id]
	}
	ready()
	// The worker hands pending entries that vanished from Redis to the reconciler.
	lost := newDispatcher(d)
	w := worker.New(wcfg, d.db, d.streams, judge, lost, clock.Real{}, d.log.With("component", "worker"),
		worker.NewMetrics(d.reg))
	// Quarantined, the worker re-runs the self-check it passed at start, for the
	// languages it claims (worker.quarantine_recheck).
	w.SetSelfCheck(func(ctx context.Context) error { return check(ctx, wcfg.Languages) })
	d.log.Info("worker starting", "name", w.Name(), "concurrency", wcfg.Concurrency, "languages", wcfg.Languages)
	// The worker also compiles uploaded packages' checkers and interactors for the API,
	// when it has a compiler for them.
	if !judge.Supports("cpp17") && !judge.Supports("c11") {
		d.log.Warn("this worker has neither cpp17 nor c11: it builds no checkers or interactors for uploads")
		return w.Run(ctx)
	}
	bs := build.NewServer(d.rdb, d.streams.Keys, judge, w.Name(), d.cfg.Worker.ToolBuilds, d.log.With("component", "builds"))
	buildsDone := make(chan struct{})
	go func() { defer close(buildsDone); _ = bs.Run(ctx) }()
	err = w.Run(ctx)
	<-buildsDone
	return err
}

// runDaemons runs parts in one process until a signal, then stops them all. With
// serveAPI the API's address is bound first and the API runs among the parts; without it,
// metrics are served on metricsAddr (if set). Once every part is ready it logs "ojd ready"
// and writes the API's address to --addr-file, if given: with port 0 that is how a script
// learns the port, and with a worker among the parts the file means it passed its
// self-check (a worker that fails it stops ojd before the file is written).
func runDaemons(cmd *cobra.Command, metricsAddr string, serveAPI bool, parts ...daemon) error {
	cfg, warnings, err := readConfig(cmd)
	if err != nil {
		return err
	}
	var addrFile, addr string
	// The API drains until the other parts stopped (a worker finishing its judging).
	var others sync.WaitGroup
	othersDone := make(chan struct{})
	if serveAPI {
		addrFile, _ = cmd.Flags().GetString("addr-file")
		ln, err := bindAPI(cfg)
		if err != nil {
			return fmt.Errorf("ojd: %w", err)
		}
		defer ln.Close()
		if addrFile != "" {
			defer os.Remove(addrFile)
		}
		addr = ln.Addr().String()
		parts = append([]daemon{apiDaemon(ln, othersDone)}, parts...)
	}
	ctx, stop := signalContext()
	defer stop()
	d, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer d.Close()
	for _, w := range warnings {
		d.log.Warn("config: " + w)
	}
	if metricsAddr != "" {
		srv := &http.Server{Addr: metricsAddr, Handler: api.HealthHandler(d.db, d.rdb, d.reg), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
				d.log.Error("metrics listener", "addr", metricsAddr, "err", err)
			}
		}()
		defer srv.Close()
	}
	// One part failing stops the others; a signal stops them all and is not a failure.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg, starting sync.WaitGroup
	var once sync.Once
	var failed error
	// A Redis that refuses oj's TLS or credentials will not change its mind: stop with the
	// key to fix. Checked beside the parts' start, so a Redis still down delays nothing.
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := d.checkRedis(ctx); err != nil {
			once.Do(func() { failed = err })
			cancel()
		}
	}()
	for i, p := range parts {
		wg.Add(1)
		starting.Add(1)
		other := !serveAPI || i > 0
		if other {
			others.Add(1)
		}
		go func() {
			defer wg.Done()
			if other {
				defer others.Done()
			}
			if err := p(ctx, d, sync.OnceFunc(starting.Done)); err != nil {
				once.Do(func() { failed = err })
				cancel()
			}
		}()
	}
	go func() { others.Wait(); close(othersDone) }()
	allReady := make(chan struct{})
	go func() { starting.Wait(); close(allReady) }()
	select {
	case <-allReady:
		if err := announceReady(d, addrFile, addr); err != nil {
			once.Do(func() { failed = err })
			cancel()
		}
	case <-ctx.Done():
	}
	wg.Wait()
	if failed != nil {
		return fmt.Errorf("ojd: %w", failed)
	}
	d.log.Info("stopped")
	return nil
}

const addrFileUsage = "once ojd is ready (the API bound and, with a worker, its self-check passed), write the address the API bound (host:port) to this file; it is removed at exit"

// announceReady logs that every part is ready and writes the API's address to addrFile.
func announceReady(d *deps, addrFile, addr string) error {
	if addrFile != "" {
		if err := writeAddrFile(addrFile, addr); err != nil {
			return err
		}
	}
	if addr != "" {
		d.log.Info("ojd ready", "api_addr", addr)
	} else {
		d.log.Info("ojd ready")
	}
	return nil
}

func newAllCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "all",
		Short: "Run the API, the dispatcher and a worker in one process",
		Args:  cobra.NoArgs,
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runDaemons(cmd, "", true, runDispatcher, runWorker)
	}
	cmd.Flags().String("listen", "", "API listen address (overrides api.listen; port 0: any free port)")
	cmd.Flags().String("addr-file", "", addrFileUsage)
	bindFlag(cmd, "api.listen", "listen")
	return cmd
}

func newAPICmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "api",
		Short: "Serve the HTTP API (submissions, admin endpoints, health, metrics)",
		Args:  cobra.NoArgs,
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return runDaemons(cmd, "", true) }
	cmd.Flags().String("listen", "", "listen address (overrides api.listen; port 0: any free port)")
	cmd.Flags().String("addr-file", "", addrFileUsage)
	bindFlag(cmd, "api.listen", "listen")
	return cmd
}

func newDispatcherCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dispatcher",
		Short: "Relay the outbox to Redis Streams and re-drive submissions whose entry was lost",
		Long: `The dispatcher moves committed submissions from the PostgreSQL outbox to the lane
streams (waking on NOTIFY, batching XADDs) and reconciles: every live submission
whose stream entry Redis no longer has is re-driven. Run one or more; replicas share
the outbox through FOR UPDATE SKIP LOCKED.`,
		Args: cobra.NoArgs,
	}
	metrics := cmd.Flags().String("metrics-listen", "127.0.0.1:9101", "address for /metrics, /healthz and /readyz (empty: none)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return runDaemons(cmd, *metrics, false, runDispatcher) }
	return cmd
}

func newWorkerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Claim submissions from the lane streams and judge them in the sandbox",
		Long: `The worker reads its lanes' streams, claims each submission in PostgreSQL (a new
attempt and a lease), judges it in the sandbox, writes the verdict back fenced by that
attempt and only then acknowledges the entry. On SIGTERM it stops reading, lets
in-flight judging finish for worker.shutdown_grace and gives back the rest.`,
		Args: cobra.NoArgs,
	}
	metrics := cmd.Flags().String("metrics-listen", "127.0.0.1:9102", "address for /metrics, /healthz and /readyz (empty: none)")
	cmd.Flags().String("name", "", "consumer name and lease owner (overrides worker.name; default host-pid-random)")
	bindFlag(cmd, "worker.name", "name")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return runDaemons(cmd, *metrics, false, runWorker) }
	return cmd
}
