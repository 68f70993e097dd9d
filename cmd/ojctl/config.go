package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// defaultServer is where `make run` puts ojd api.
const defaultServer = "http://127.0.0.1:8080"

// ojctlContext is one named context of the config file, as kubectl has them.
type ojctlContext struct {
	Name    string `json:"name"`
	Server  string `json:"server"`
	Token   string `json:"-"`
	Current bool   `json:"current"`
}

// configPath is ~/.config/ojctl/config.yaml ($XDG_CONFIG_HOME honoured), or OJCTL_CONFIG.
func (a *app) configPath() string {
	if p := a.getenv("OJCTL_CONFIG"); p != "" {
		return p
	}
	dir := a.getenv("XDG_CONFIG_HOME")
	if dir == "" {
		dir = filepath.Join(a.getenv("HOME"), ".config")
	}
	return filepath.Join(dir, "ojctl", "config.yaml")
}

// loadConfig reads the config file; a missing file is an empty config.
func (a *app) loadConfig() (*viper.Viper, error) {
	v := viper.New()
	v.SetConfigFile(a.configPath())
	v.SetConfigType("yaml")
	if err := v.ReadInConfig(); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, usagef("config %s: %v", a.configPath(), err)
	}
	return v, nil
}

// contexts lists the config's contexts, sorted by name. viper folds keys to lower case,
// so context names are case-insensitive.
func contexts(v *viper.Viper) []ojctlContext {
	current := strings.ToLower(v.GetString("current-context"))
	var out []ojctlContext
	for name, raw := range v.GetStringMap("contexts") {
		m, _ := raw.(map[string]any)
		str := func(k string) string { s, _ := m[k].(string); return s }
		out = append(out, ojctlContext{Name: name, Server: str("server"), Token: str("token"), Current: name == current})
	}
	slices.SortFunc(out, func(x, y ojctlContext) int { return strings.Compare(x.Name, y.Name) })
	return out
}

func findContext(v *viper.Viper, name string) (ojctlContext, bool) {
	for _, c := range contexts(v) {
		if c.Name == strings.ToLower(name) {
			return c, true
		}
	}
	return ojctlContext{}, false
}

// resolve decides the server and token. Precedence: --server/--token; then the context
// named by an explicit --context (choosing a context on the command line is a flag, so it
// beats the environment); then OJCTL_SERVER/OJCTL_TOKEN; then the config's current-context.
func (a *app) resolve() (server, token string, err error) {
	v, err := a.loadConfig()
	if err != nil {
		return "", "", err
	}
	var explicit, current ojctlContext
	if a.contextName != "" {
		c, ok := findContext(v, a.contextName)
		if !ok {
			return "", "", usagef("context %q is not in %s (known: %s)", a.contextName, a.configPath(), contextNames(v))
		}
		explicit = c
	} else if name := v.GetString("current-context"); name != "" {
		c, ok := findContext(v, name)
		if !ok {
			return "", "", usagef("current-context %q is not in %s (known: %s)", name, a.configPath(), contextNames(v))
		}
		current = c
	}
	server = first(a.server, explicit.Server, a.getenv("OJCTL_SERVER"), current.Server, defaultServer)
	token = first(a.token, explicit.Token, a.getenv("OJCTL_TOKEN"), current.Token)
	return strings.TrimRight(server, "/"), token, nil
}

func contextNames(v *viper.Viper) string {
	var names []string
	for _, c := range contexts(v) {
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func first(vals ...string) string {
	for _, s := range vals {
		if s != "" {
			return s
		}
	}
	return ""
}

func newConfigCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show and switch the named contexts of ~/.config/ojctl/config.yaml",
		Long: `A context names a server and a token, as kubectl's contexts do. The file
(~/.config/ojctl/config.yaml, or $OJCTL_CONFIG) looks like:

  current-context: local
  contexts:
    local: {server: "http://127.0.0.1:8080", token: "oj_..."}
    prod:  {server: "https://judge.example.org", token: "oj_..."}

--context NAME uses another context for one command. Context names are
case-insensitive. The file holds tokens: keep it mode 0600 (ojctl writes it so).`,
		Example: `  ojctl config get-contexts
  ojctl config set-context prod --server https://judge.example.org --token "$TOKEN"
  ojctl config use-context prod`,
	}
	cmd.AddCommand(newGetContextsCmd(a), newUseContextCmd(a), newSetContextCmd(a), newCurrentContextCmd(a))
	return cmd
}

func newGetContextsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "get-contexts",
		Short:   "List the contexts (tokens are not shown)",
		Long:    "List the contexts of the config file with their servers; * marks the current one.",
		Example: "  ojctl config get-contexts\n  ojctl config get-contexts -o json",
		Args:    cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			v, err := a.loadConfig()
			if err != nil {
				return err
			}
			cs := contexts(v)
			data := struct {
				CurrentContext string         `json:"current_context"`
				Contexts       []ojctlContext `json:"contexts"`
			}{v.GetString("current-context"), cs}
			if data.Contexts == nil {
				data.Contexts = []ojctlContext{}
			}
			return a.print(data, func(p *printer) {
				rows := make([][]string, 0, len(cs))
				for _, c := range cs {
					mark := ""
					if c.Current {
						mark = "*"
					}
					rows = append(rows, []string{mark, c.Name, c.Server})
				}
				p.table([]string{"CURRENT", "NAME", "SERVER"}, rows)
			})
		}),
	}
}

func newUseContextCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "use-context NAME",
		Short:   "Make NAME the current context",
		Long:    "Set current-context in the config file; later commands use that context's server and token.",
		Example: "  ojctl config use-context prod",
		Args:    cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			v, err := a.loadConfig()
			if err != nil {
				return err
			}
			c, ok := findContext(v, args[0])
			if !ok {
				return usagef("context %q is not in %s (known: %s)", args[0], a.configPath(), contextNames(v))
			}
			v.Set("current-context", c.Name)
			if err := a.writeConfig(v); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "switched to context %q (%s)\n", c.Name, c.Server)
			return nil
		}),
	}
}

func newSetContextCmd(a *app) *cobra.Command {
	var server, token string
	cmd := &cobra.Command{
		Use:   "set-context NAME --server URL [--token T]",
		Short: "Create or update a context",
		Long: `Create the context NAME, or update the fields given. The first context created
becomes the current one.`,
		Example: `  ojctl config set-context local --server http://127.0.0.1:8080 --token "$(ojd --config var/ojd.yaml token create --name me --role admin | tail -1)"`,
		Args:    cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			v, err := a.loadConfig()
			if err != nil {
				return err
			}
			name := strings.ToLower(args[0])
			c, _ := findContext(v, name)
			if cmd.Flags().Changed("server") {
				c.Server = server
			}
			if cmd.Flags().Changed("token") {
				c.Token = token
			}
			if c.Server == "" {
				return usagef("context %q needs --server", name)
			}
			all := v.GetStringMap("contexts")
			if all == nil {
				all = map[string]any{}
			}
			all[name] = map[string]any{"server": c.Server, "token": c.Token}
			v.Set("contexts", all)
			if v.GetString("current-context") == "" {
				v.Set("current-context", name)
			}
			if err := a.writeConfig(v); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "context %q set (%s)\n", name, c.Server)
			return nil
		}),
	}
	cmd.Flags().StringVar(&server, "server", "", "server URL")
	cmd.Flags().StringVar(&token, "token", "", "bearer token")
	return cmd
}

func newCurrentContextCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "current-context",
		Short:   "Print the current context's name",
		Long:    "Print current-context from the config file (empty when none is set).",
		Example: "  ojctl config current-context",
		Args:    cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			v, err := a.loadConfig()
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), v.GetString("current-context"))
			return nil
		}),
	}
}

// writeConfig saves v, readable by its owner only (it holds tokens).
func (a *app) writeConfig(v *viper.Viper) error {
	path := a.configPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	v.SetConfigPermissions(0o600)
	if err := v.WriteConfigAs(path); err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	return os.Chmod(path, 0o600)
}
