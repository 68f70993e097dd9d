package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"oj/core/api"
	j0api "oj/core/api/judge0"
	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/judge"
	"oj/core/judge/objstore"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/webhook"
	"oj/core/worker"
	"oj/sandbox"
)

// Config is the whole of ojd.yaml. It is read once, here, and handed down as typed
// structs: nothing under core/ or sandbox/ reads the environment.
type Config struct {
	Postgres   store.PoolConfig `mapstructure:"postgres"`
	Redis      stream.Config    `mapstructure:"redis"`
	API        api.Config       `mapstructure:"api"`
	Dispatcher dispatch.Config  `mapstructure:"dispatcher"`
	// Events is the results feed's retention, which the dispatcher keeps.
	Events dispatch.EventsConfig `mapstructure:"events"`
	// Webhooks are sent by the dispatcher.
	Webhooks webhook.Config `mapstructure:"webhooks"`
	// Runs bounds runs (the Run button): the API clamps to it, the dispatcher deletes
	// runs past its retention.
	Runs    job.RunsConfig `mapstructure:"runs"`
	Worker  worker.Config  `mapstructure:"worker"`
	Sandbox sandbox.Config `mapstructure:"sandbox"`
	Judge   judge.Config   `mapstructure:"judge"`
	// Judge0 is the Judge0 CE-compatible API the API daemon serves beside its own
	// (after judge, so that a misspelt "judg" is taken for judge).
	Judge0  j0api.Config    `mapstructure:"judge0"`
	Storage objstore.Config `mapstructure:"storage"`
	Log     LogConfig       `mapstructure:"log"`
}

// LogConfig sets the log level (debug, info, warn, error) and format (json, text).
type LogConfig struct {
	Level  string `mapstructure:"level"`
	Format string `mapstructure:"format"`
}

func defaultConfig() Config {
	return Config{
		Postgres:   store.DefaultPoolConfig(),
		Redis:      stream.DefaultConfig(),
		API:        api.DefaultConfig(),
		Judge0:     j0api.DefaultConfig(),
		Dispatcher: dispatch.DefaultConfig(),
		Events:     dispatch.DefaultEventsConfig(),
		Webhooks:   webhook.DefaultConfig(),
		Runs:       job.DefaultRunsConfig(),
		Worker:     worker.DefaultConfig(),
		Sandbox:    sandbox.DefaultConfig(),
		Judge:      judge.DefaultConfig(),
		Storage:    objstore.DefaultConfig(),
		Log:        LogConfig{Level: "info", Format: "json"},
	}
}

// Validate checks every section and names the bad key.
func (c Config) Validate() error {
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("log.level: %q (want debug, info, warn or error)", c.Log.Level)
	}
	if c.Log.Format != "json" && c.Log.Format != "text" {
		return fmt.Errorf("log.format: %q (want json or text)", c.Log.Format)
	}
	for _, v := range []interface{ Validate() error }{c.Postgres, c.Redis, c.API, c.Judge0, c.Dispatcher, c.Events, c.Webhooks, c.Runs,
		c.Worker, c.Sandbox, c.Judge, c.Storage} {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// loadConfig is readConfig for the one-shot commands (config, migrate, token, sandbox):
// its warnings go to stderr.
func loadConfig(cmd *cobra.Command) (*Config, error) {
	cfg, warnings, err := readConfig(cmd)
	for _, w := range warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "ojd: warning: "+w)
	}
	return cfg, err
}

// readConfig reads the file named by --config (a missing default file is fine), then
// OJ_* variables (OJ_POSTGRES_URL for postgres.url), then the flags bound by bindFlag,
// and validates the whole: a key in the file that is not a configuration key is an
// error naming it and the nearest valid key. It returns, as warnings, the OJ_* variables
// that name no key.
func readConfig(cmd *cobra.Command) (*Config, []string, error) {
	v := viper.New()
	cfg := defaultConfig()
	setDefaults(v, "", reflect.ValueOf(cfg))
	path, _ := cmd.Flags().GetString("config")
	v.SetConfigFile(path)
	v.SetConfigType("yaml")
	if err := v.ReadInConfig(); err != nil {
		var pe *fs.PathError
		missing := errors.As(err, &pe) || os.IsNotExist(err)
		if !missing || cmd.Flags().Changed("config") {
			return nil, nil, fmt.Errorf("config %s: %w", path, err)
		}
	}
	v.SetEnvPrefix("OJ")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	for key, flag := range boundFlags[cmd] {
		if err := v.BindPFlag(key, cmd.Flags().Lookup(flag)); err != nil {
			return nil, nil, err
		}
	}
	// Every key with a default is known, and the environment and flags reach only known
	// keys: an unknown one comes from the file.
	if bad := unknownKeys(keyTree(reflect.TypeOf(cfg)), v.AllKeys()); len(bad) > 0 {
		return nil, nil, fmt.Errorf("config %s: %s", path, strings.Join(bad, "; "))
	}
	if err := v.UnmarshalExact(&cfg); err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	return &cfg, unknownEnv(os.Environ(), v.AllKeys()), nil
}

// boundFlags maps, per command, config keys to the flag that overrides them.
var boundFlags = map[*cobra.Command]map[string]string{}

// bindFlag makes --flag override the config key for cmd.
func bindFlag(cmd *cobra.Command, key, flag string) {
	if boundFlags[cmd] == nil {
		boundFlags[cmd] = map[string]string{}
	}
	boundFlags[cmd][key] = flag
}

// setDefaults registers every leaf of the default config with viper, so that
// AutomaticEnv knows each key (viper only consults the environment for known keys).
func setDefaults(v *viper.Viper, prefix string, val reflect.Value) {
	switch val.Kind() {
	case reflect.Struct:
		if _, isDuration := val.Interface().(time.Duration); isDuration {
			break
		}
		for i := 0; i < val.NumField(); i++ {
			tag := val.Type().Field(i).Tag.Get("mapstructure")
			if tag == "" || tag == "-" {
				continue
			}
			setDefaults(v, join(prefix, tag), val.Field(i))
		}
		return
	case reflect.Map:
		for _, k := range val.MapKeys() {
			setDefaults(v, join(prefix, fmt.Sprint(k.Interface())), val.MapIndex(k))
		}
		return
	}
	v.SetDefault(prefix, val.Interface())
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}
