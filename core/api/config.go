package api

import (
	"errors"
	"fmt"
	"time"

	"oj/core/job"
	"oj/core/webhook"
)

// Config configures the HTTP server (key "api").
type Config struct {
	Listen string `mapstructure:"listen"`
	// ReadTimeout bounds reading a request, its body included; it also ends the reading
	// and discarding of a refused request's body before its answer (linger.go).
	ReadTimeout time.Duration `mapstructure:"read_timeout"`
	// ShutdownTimeout bounds the end of a stop's drain: once the rest of the process
	// stopped, how long the requests in flight may still take (drain.go).
	ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout"`
	// ToolBuildTimeout bounds how long a problem upload waits for a worker to compile its
	// checker or interactor (503 beyond: no worker answered).
	ToolBuildTimeout time.Duration `mapstructure:"tool_build_timeout"`
	Limits           Limits        `mapstructure:"limits"`
	// Webhooks is the dispatcher's webhook configuration (key "webhooks"), of which the
	// admin actions use the retry window (a redelivery's, a test's) and the rotation
	// grace.
	Webhooks webhook.Config `mapstructure:"-"`
	// Runs bounds runs (key "runs" of ojd.yaml, shared with the dispatcher).
	Runs job.RunsConfig `mapstructure:"-"`
}

// Limits bound what clients may ask of the API (key "api.limits").
type Limits struct {
	// MaxSourceBytes bounds a submission's source (413 beyond).
	MaxSourceBytes int `mapstructure:"max_source_bytes"`
	// MaxProblemBytes bounds a problem package upload (413 beyond).
	MaxProblemBytes int64 `mapstructure:"max_problem_bytes"`
	// UserRate and UserBurst are each user's token bucket for submits (per second);
	// a rate of 0 disables the bucket.
	UserRate  float64 `mapstructure:"user_rate"`
	UserBurst int     `mapstructure:"user_burst"`
	// UserBuckets bounds how many users' buckets are kept (least recently used go first).
	UserBuckets int `mapstructure:"user_buckets"`
	// GlobalRate and GlobalBurst are the bucket all submits share; 0 disables it.
	GlobalRate  float64 `mapstructure:"global_rate"`
	GlobalBurst int     `mapstructure:"global_burst"`
	// MaxLivePerUser bounds the submissions a user token may have queued or running at
	// once (429 too_many_live beyond); MaxLivePerAdmin the same for admin tokens. 0: no
	// bound.
	MaxLivePerUser  int `mapstructure:"max_live_per_user"`
	MaxLivePerAdmin int `mapstructure:"max_live_per_admin"`
	// BacklogMaxQueued and BacklogMaxAge refuse submits (429) while the queue holds more
	// submissions, or its oldest has waited longer — to the users who have submissions
	// waiting; a user with nothing queued is still accepted. 0 disables each.
	BacklogMaxQueued int64         `mapstructure:"backlog_max_queued"`
	BacklogMaxAge    time.Duration `mapstructure:"backlog_max_age"`
	// BacklogRefresh is how often the queue is measured (one indexed query, shared by
	// every request).
	BacklogRefresh time.Duration `mapstructure:"backlog_refresh"`
	// MaxWait caps a submit's wait_ms.
	MaxWait time.Duration `mapstructure:"max_wait"`
	// MaxAttempts is the retry bound given to new submissions.
	MaxAttempts int `mapstructure:"max_attempts"`
	// MaxStreamsPerToken bounds the event streams one token may hold open at once (0: no
	// bound); MaxStreams bounds them in all, and is itself held to half the process's
	// open-file limit. 429 too_many_streams beyond either.
	MaxStreamsPerToken int `mapstructure:"max_streams_per_token"`
	MaxStreams         int `mapstructure:"max_streams"`
	// MaxFeedFollowers bounds the results feed's followers in all (each counts as a
	// stream too); 429 beyond.
	MaxFeedFollowers int `mapstructure:"max_feed_followers"`
	// SSEHeartbeat is the interval of the comment lines that keep an event stream open.
	SSEHeartbeat time.Duration `mapstructure:"sse_heartbeat"`
	// RunRate and RunBurst are each token's bucket for runs (per second), apart from its
	// submits' (a token with a submit_rate of its own, a site's, uses that for runs too);
	// a rate of 0 disables it. RunMaxQueued refuses runs (429) while that many runs wait
	// for a worker, to callers with a run among them (one with none is still accepted);
	// 0 disables the cap. RunMaxLivePerUser bounds the runs a token (of any role) may
	// have queued or running at once (429 too_many_live beyond; a token's own
	// run_max_live replaces it); 0: no bound.
	RunRate           float64 `mapstructure:"run_rate"`
	RunBurst          int     `mapstructure:"run_burst"`
	RunMaxQueued      int64   `mapstructure:"run_max_queued"`
	RunMaxLivePerUser int     `mapstructure:"run_max_live_per_user"`
	// AuthCacheTTL is how long a token lookup is reused (a revoked token stops working
	// within this delay); 0 looks every request up.
	AuthCacheTTL time.Duration `mapstructure:"auth_cache_ttl"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Listen: "127.0.0.1:8080", ReadTimeout: 30 * time.Second, ShutdownTimeout: 10 * time.Second,
		ToolBuildTimeout: 90 * time.Second, Limits: DefaultLimits(), Webhooks: webhook.DefaultConfig(),
		Runs: job.DefaultRunsConfig()}
}

// DefaultLimits returns the default limits: 64 KiB sources, 256 MiB packages, 2 submits/s
// per user (burst 10), 500/s in all (burst 1000), 20 live submissions per user token,
// at most 50,000 queued or 10 minutes of queue, waits capped at 10 s, 3 attempts; runs
// 2/s (burst 10), 3 live per token, 1,000 waiting.
func DefaultLimits() Limits {
	return Limits{
		MaxSourceBytes:     64 << 10,
		MaxProblemBytes:    256 << 20,
		UserRate:           2,
		UserBurst:          10,
		UserBuckets:        100_000,
		GlobalRate:         500,
		GlobalBurst:        1000,
		MaxLivePerUser:     20,
		BacklogMaxQueued:   50_000,
		BacklogMaxAge:      10 * time.Minute,
		BacklogRefresh:     time.Second,
		MaxWait:            10 * time.Second,
		MaxAttempts:        3,
		MaxStreamsPerToken: 16,
		MaxStreams:         4096,
		MaxFeedFollowers:   256,
		SSEHeartbeat:       15 * time.Second,
		AuthCacheTTL:       5 * time.Second,
		RunRate:            2,
		RunBurst:           10,
		RunMaxQueued:       1000,
		RunMaxLivePerUser:  3,
	}
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
	case c.ToolBuildTimeout < time.Second:
		return errors.New("api.tool_build_timeout: must be at least 1s")
	}
	if err := c.Runs.Validate(); err != nil {
		return err
	}
	return c.Limits.Validate()
}

// Validate names the first bad key.
func (l Limits) Validate() error {
	switch {
	case l.MaxSourceBytes < 1 || l.MaxSourceBytes > 16<<20:
		return fmt.Errorf("api.limits.max_source_bytes: %d not in 1..16MiB", l.MaxSourceBytes)
	case l.MaxProblemBytes < 1<<10:
		return fmt.Errorf("api.limits.max_problem_bytes: %d is under 1 KiB", l.MaxProblemBytes)
	case l.UserRate < 0:
		return errors.New("api.limits.user_rate: must not be negative")
	case l.UserRate > 0 && l.UserBurst < 1:
		return errors.New("api.limits.user_burst: must be at least 1 when user_rate is set")
	case l.UserBuckets < 1:
		return errors.New("api.limits.user_buckets: must be at least 1")
	case l.GlobalRate < 0:
		return errors.New("api.limits.global_rate: must not be negative")
	case l.GlobalRate > 0 && l.GlobalBurst < 1:
		return errors.New("api.limits.global_burst: must be at least 1 when global_rate is set")
	case l.MaxLivePerUser < 0:
		return errors.New("api.limits.max_live_per_user: must not be negative")
	case l.MaxLivePerAdmin < 0:
		return errors.New("api.limits.max_live_per_admin: must not be negative")
	case l.BacklogMaxQueued < 0:
		return errors.New("api.limits.backlog_max_queued: must not be negative")
	case l.BacklogMaxAge < 0:
		return errors.New("api.limits.backlog_max_age: must not be negative")
	case l.BacklogRefresh <= 0:
		return errors.New("api.limits.backlog_refresh: must be positive")
	case l.MaxWait < 0 || l.MaxWait > 10*time.Second:
		return errors.New("api.limits.max_wait: must be in 0..10s")
	case l.MaxAttempts < 1 || l.MaxAttempts > 100:
		return fmt.Errorf("api.limits.max_attempts: %d not in 1..100", l.MaxAttempts)
	case l.MaxStreamsPerToken < 0:
		return errors.New("api.limits.max_streams_per_token: must not be negative")
	case l.MaxStreams < 1:
		return errors.New("api.limits.max_streams: must be at least 1")
	case l.MaxFeedFollowers < 1:
		return errors.New("api.limits.max_feed_followers: must be at least 1")
	case l.SSEHeartbeat <= 0:
		return errors.New("api.limits.sse_heartbeat: must be positive")
	case l.RunRate < 0:
		return errors.New("api.limits.run_rate: must not be negative")
	case l.RunRate > 0 && l.RunBurst < 1:
		return errors.New("api.limits.run_burst: must be at least 1 when run_rate is set")
	case l.RunMaxQueued < 0:
		return errors.New("api.limits.run_max_queued: must not be negative")
	case l.RunMaxLivePerUser < 0:
		return errors.New("api.limits.run_max_live_per_user: must not be negative")
	case l.AuthCacheTTL < 0:
		return errors.New("api.limits.auth_cache_ttl: must not be negative")
	}
	return nil
}
