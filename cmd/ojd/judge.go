package main

import (
	"context"
	"fmt"

	"oj/core/judge"
	"oj/core/judge/objstore"
	"oj/sandbox"
)

// buildJudge wires the worker's judge: a sandbox pool sized for the worker's concurrency
// (two slots per submission: an interactive case runs the solution and the interactor at
// once; one per tool build, so that an upload's build never waits for judging), the
// object store, and the judge with its package cache; then the self-check. It returns,
// besides the judge and its closer, the self-check a quarantined worker re-runs (recheck).
func buildJudge(ctx context.Context, d *deps) (*judge.Judge, func(context.Context, []string) error, func(), error) {
	sc := d.cfg.Sandbox
	total := 0
	for _, n := range d.cfg.Worker.Concurrency {
		total += n
	}
	if need := 2*total + d.cfg.Worker.ToolBuilds; sc.PoolSize < need {
		d.log.Info("sandbox pool sized for the worker's concurrency", "pool_size", need, "configured", sc.PoolSize)
		sc.PoolSize = need
	}
	pool, err := sandbox.NewPool(sc)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	store, err := objstore.Open(ctx, d.cfg.Storage)
	if err != nil {
		pool.Close()
		return nil, nil, nil, fmt.Errorf("storage: %w", err)
	}
	j, err := judge.New(d.cfg.Judge, judge.SandboxRunner{Pool: pool}, store, d.log.With("component", "judge"))
	if err != nil {
		pool.Close()
		return nil, nil, nil, err
	}
	if err := selfCheck(ctx, d.log, sc, d.cfg.Judge.WorkDir, pool, j); err != nil {
		j.Close()
		pool.Close()
		return nil, nil, nil, err
	}
	check := func(ctx context.Context, languages []string) error {
		return recheck(ctx, d.cfg.Judge.WorkDir, pool, j, languages)
	}
	return j, check, func() { j.Close(); pool.Close() }, nil
}
