package main

import (
	"fmt"
	"io"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func newConfigCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration (file + OJ_* environment + defaults), validated",
		Long: `Prints every setting ojd would run with, as YAML in the file's own layout: the
defaults, overridden by the --config file, overridden by OJ_* variables (OJ_API_LISTEN
for api.listen). Secrets are masked. A bad value, or a key in the file that is not a
configuration key, fails here with the key named, as it would at start; an OJ_*
variable that names no key is a warning on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			writeYAML(cmd.OutOrStdout(), 0, reflect.ValueOf(*cfg))
			return nil
		},
	}
}

// writeYAML writes a config struct by its mapstructure tags, in declaration order.
func writeYAML(w io.Writer, depth int, v reflect.Value) {
	indent := strings.Repeat("  ", depth)
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			tag := v.Type().Field(i).Tag.Get("mapstructure")
			if tag == "" || tag == "-" {
				continue
			}
			writeEntry(w, depth, indent, tag, v.Field(i))
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			writeEntry(w, depth, indent, fmt.Sprint(k.Interface()), v.MapIndex(k))
		}
	}
}

func writeEntry(w io.Writer, depth int, indent, key string, f reflect.Value) {
	if _, isDuration := f.Interface().(time.Duration); !isDuration && (f.Kind() == reflect.Struct || f.Kind() == reflect.Map) {
		fmt.Fprintf(w, "%s%s:\n", indent, key)
		writeYAML(w, depth+1, f)
		return
	}
	fmt.Fprintf(w, "%s%s: %s\n", indent, key, scalar(key, f))
}

func scalar(key string, f reflect.Value) string {
	switch x := f.Interface().(type) {
	case time.Duration:
		return x.String()
	case string:
		if x != "" && (strings.Contains(key, "password") || strings.Contains(key, "secret") || strings.Contains(key, "access_key")) {
			return `"***"`
		}
		if u, err := url.Parse(x); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), "***")
				x = u.String()
			}
		}
		return fmt.Sprintf("%q", x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return fmt.Sprint(f.Interface())
}
