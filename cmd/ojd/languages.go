package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"oj/core/judge/lang"
)

func newLanguagesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "languages",
		Short: "The judge's languages on this host: install their toolchains",
	}
	var dryRun bool
	var only []string
	install := &cobra.Command{
		Use:   "install [--dry-run] [--only ID,...]",
		Short: "Install with apt-get the Debian packages of the configured languages",
		Long: `Install the Debian packages that provide the toolchains of the languages in
judge.languages_file (the embedded defaults when it is empty): each language's
"packages" list. Packages already installed are left alone; the rest are installed
with "apt-get install --no-install-recommends" after "apt-get update". Run it as root on
each worker host, after installing the oj package (whose dependencies only recommend
the language packages), and restart ojd-worker: its self-check then finds the
toolchains and announces their languages with the versions it detected.

A language whose toolchain is not a Debian package (Go from go.dev in /usr/local/go, or
one a deployer installs under /opt) lists no packages and is named at the end: install
it by hand. --dry-run prints what would be installed and the apt-get command without
running anything; --only limits it to some languages.`,
		Example: `  ojd languages install --dry-run
  ojd languages install
  ojd languages install --only pypy3,kotlin
  ojd --config /etc/oj/ojd.yaml languages install   # judge.languages_file from there`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			langs, err := lang.Load(cfg.Judge.LanguagesFile)
			if err != nil {
				return fmt.Errorf("judge.languages_file: %w", err)
			}
			return installLanguages(cmd.Context(), cmd.OutOrStdout(), langs, only, dryRun, dpkgInstalled, runApt)
		},
	}
	install.Flags().BoolVar(&dryRun, "dry-run", false, "print the packages and the apt-get command; install nothing")
	install.Flags().StringSliceVar(&only, "only", nil, "only these language ids (comma-separated)")
	cmd.AddCommand(install)
	return cmd
}

// installLanguages installs the packages of langs (of only, when given) that installed
// says are missing, with apt; dryRun only says what it would do.
func installLanguages(ctx context.Context, w io.Writer, langs *lang.Set, only []string, dryRun bool,
	installed func(pkg string) bool, apt func(ctx context.Context, args ...string) error) error {
	for _, id := range only {
		if _, ok := langs.Get(id); !ok {
			return fmt.Errorf("--only: %q is not a language of judge.languages_file (%s)", id, strings.Join(langs.IDs(), ", "))
		}
	}
	var want, missing, byHand []string
	for _, l := range langs.All() {
		if len(only) > 0 && !slices.Contains(only, l.ID) {
			continue
		}
		if len(l.Packages) == 0 {
			byHand = append(byHand, l.ID)
			continue
		}
		for _, p := range l.Packages {
			if !slices.Contains(want, p) {
				want = append(want, p)
			}
		}
	}
	for _, p := range want {
		if !installed(p) {
			missing = append(missing, p)
		}
	}
	fmt.Fprintf(w, "packages of the languages: %s\n", orNone(want))
	fmt.Fprintf(w, "missing on this host: %s\n", orNone(missing))
	if len(byHand) > 0 {
		fmt.Fprintf(w, "no Debian package (install their toolchains by hand): %s\n", strings.Join(byHand, ", "))
	}
	if len(missing) == 0 {
		return nil
	}
	args := append([]string{"install", "-y", "--no-install-recommends"}, missing...)
	if dryRun {
		fmt.Fprintf(w, "would run: apt-get update && apt-get %s\n", strings.Join(args, " "))
		return nil
	}
	if err := apt(ctx, "update"); err != nil {
		return fmt.Errorf("apt-get update: %w", err)
	}
	if err := apt(ctx, args...); err != nil {
		return fmt.Errorf("apt-get install: %w", err)
	}
	var still []string
	for _, p := range missing {
		if !installed(p) {
			still = append(still, p)
		}
	}
	if len(still) > 0 {
		return fmt.Errorf("still not installed after apt-get: %s", strings.Join(still, " "))
	}
	fmt.Fprintf(w, "installed: %s (restart ojd-worker so that its self-check finds them)\n", strings.Join(missing, " "))
	return nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, " ")
}

// dpkgInstalled reports whether Debian package pkg is installed.
func dpkgInstalled(pkg string) bool {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Status}", pkg).Output()
	return err == nil && string(out) == "install ok installed"
}

// runApt runs apt-get non-interactively, its output on ojd's.
func runApt(ctx context.Context, args ...string) error {
	c := exec.CommandContext(ctx, "apt-get", args...)
	c.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	return c.Run()
}
