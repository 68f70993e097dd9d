package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"oj/core/wire"
)

func newProblemCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "problem",
		Short: "Upload, list, inspect and remove problem packages",
		Long: `A problem package is oj's own zip of problem.yaml plus tests/1.in, tests/1.out, …,
a Kattis package or a Polygon full package (see docs/problem-format.md). Each upload
creates a new version; submissions keep the version they were judged against.
"problem verify" judges a version's labeled submissions (the package's own).

"problem rm" archives a problem that has submissions (new submissions to it are
refused as for an unknown problem, its existing ones keep their results and can be
rejudged) and deletes one that has none. Pushing an archived problem again brings
it back as a new version.`,
		Example: `  ojctl problem push ./aplusb
  ojctl problem push ./kattis/different --id different
  ojctl problem verify different --wait
  ojctl problem ls
  ojctl problem show aplusb
  ojctl problem rm aplusb --dry-run`,
	}
	cmd.AddCommand(newProblemPushCmd(a), newProblemShowCmd(a), newProblemListCmd(a), newProblemRemoveCmd(a),
		newProblemVerifyCmd(a))
	return cmd
}

func newProblemPushCmd(a *app) *cobra.Command {
	var id, format string
	var verify, wait bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "push DIR|ZIP [--id P] [--format oj|kattis|polygon] [--verify [--wait]]",
		Short: "Upload a problem package (a directory is zipped first)",
		Long: `Upload a problem package as a new version of problem P (admin token): oj's own
package, a Kattis package (legacy, 2023-07 draft, 2025-09) or a Polygon full
package, detected by the server from what it holds (--format forces one). A
directory is zipped as it is; a symlink inside it that points to a file of the
directory is kept as a link (Kattis packages link test files), any other symlink is
refused. The id defaults to the directory's or the zip's name without .zip (the
server takes a-z, 0-9, _ and -).

On a terminal the upload shows its progress. A package the server refuses (bad
YAML, missing tests, unsafe paths, too big, a feature oj cannot honour) prints the
server's reason and exits 1.

A package without a time limit (Kattis: derived from its accepted submissions) is
provisional until verified: users' submissions to it are refused until then.
--verify verifies the pushed version at once (as "problem verify" does) and --wait
follows it, showing on a terminal how many of its submissions are judged, then
prints the problem with its derived limit and the verification's table.`,
		Example: `  ojctl problem push ./aplusb
  ojctl problem push ./kattis/sum --verify --wait
  ojctl problem push aplusb-v2.zip --id aplusb
  ojctl problem push ./icpc/guess --format kattis
  ojctl problem push ./aplusb -o json | jq .version`,
		Args: cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			src := filepath.Clean(args[0])
			info, err := os.Stat(src)
			if err != nil {
				return err
			}
			pkg, err := readPackage(src, info, &id)
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			var body io.Reader = bytes.NewReader(pkg)
			var bar *uploadProgress
			if a.stderrTTY {
				bar = &uploadProgress{r: body, w: a.stderr, id: id, total: int64(len(pkg))}
				body = bar
			}
			prob, err := c.PutProblemAs(cmd.Context(), id, format, body)
			bar.finish()
			if err != nil {
				return err
			}
			if verify {
				return a.verifyPushed(cmd.Context(), c, prob, wait, timeout)
			}
			return a.print(prob, func(p *printer) { printProblem(p, prob) })
		}),
	}
	cmd.Flags().BoolVar(&verify, "verify", false, "verify the version once pushed (as problem verify does; asking for it is the confirmation)")
	cmd.Flags().BoolVar(&wait, "wait", false, "with --verify, follow the verification and print its table (exit 1 when it failed)")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Minute, "with --wait, give up after this long")
	cmd.Flags().StringVar(&id, "id", "", "problem id (default: the directory's or zip's name)")
	cmd.Flags().StringVar(&format, "format", "", "the package's format: oj, kattis or polygon (default: detected by the server)")
	return cmd
}

func newProblemShowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "show P",
		Short: "Show a problem's latest version",
		Long: `Show a problem's latest version: title, limits (a provisional time limit says so),
checker, version, package sha256, case count, subtasks, the format its package came
in, the languages it accepts (and its time factors per language), its sample cases and
statement files (any token reads them:
GET /api/v1/problems/P/samples/N/input|answer and …/statement/PATH), its latest
verification in short, and, to an admin, what was read from a Kattis or Polygon
package and what was kept out.`,
		Example: "  ojctl problem show aplusb\n  ojctl problem show aplusb -o json",
		Args:    cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			prob, err := c.Problem(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.print(prob, func(p *printer) { printProblem(p, prob) })
		}),
	}
}

func printProblem(p *printer, pr *wire.Problem) {
	p.fields([][2]string{
		{"ID", pr.ID},
		{"Title", pr.Title},
		{"Version", itoa(pr.Version)},
		{"Time limit", timeLimit(pr)},
		{"Memory limit", fmt.Sprintf("%d MiB", pr.MemoryLimitMB)},
		{"Format", strings.TrimSpace(pr.Format + " " + pr.FormatVersion)},
		{"Checker", pr.Checker},
		{"Interactive", yesNo(pr.Interactive)},
		{"Stop on first failure", yesNo(pr.StopOnFirstFailure)},
		{"Cases", itoa(pr.CaseCount)},
		{"Owners see output of", shownCases(pr)},
		{"SHA-256", pr.SHA256},
		{"Created", stamp(pr.CreatedAt)},
		{"Labeled submissions", itoa(pr.LabeledSubmissions)},
		{"Languages", problemLanguages(pr)},
		{"Verified", verifiedText(pr.Verify)},
	})
	if len(pr.Statements) > 0 {
		p.heading("Public statement files, any token (GET /api/v1/problems/" + pr.ID + "/statement/PATH)")
		for _, f := range pr.Statements {
			p.printf("  %s\n", f)
		}
	}
	if len(pr.StatementsPrivate) > 0 {
		p.heading("Private statement files, admins only (editorials, unreferenced sources)")
		for _, f := range pr.StatementsPrivate {
			p.printf("  %s\n", f)
		}
	}
	if pr.Import != nil && len(pr.Import.Mapped)+len(pr.Import.Notes) > 0 {
		p.heading("Read from " + pr.Format)
		rows := make([][]string, 0, len(pr.Import.Mapped))
		for _, m := range pr.Import.Mapped {
			rows = append(rows, []string{m.From, m.To})
		}
		p.table([]string{"FROM", "TO"}, rows)
		for _, n := range pr.Import.Notes {
			p.printf("  note: %s\n", n)
		}
	}
	printDerivation(p, pr.ID, pr.TimeLimitDerivation)
	printGrading(p, pr)
	if len(pr.Subtasks) > 0 {
		p.heading("Subtasks")
		rows := make([][]string, 0, len(pr.Subtasks))
		for i, s := range pr.Subtasks {
			cases := make([]string, len(s.Cases))
			for j, c := range s.Cases {
				cases[j] = itoa(c)
			}
			rows = append(rows, []string{itoa(i + 1), fmt.Sprint(s.Score), strings.Join(cases, " ")})
		}
		p.table([]string{"#", "SCORE", "CASES"}, rows)
	}
}

func defaultProblemID(src string, dir bool) string {
	if abs, err := filepath.Abs(src); err == nil {
		src = abs
	}
	name := filepath.Base(src)
	if !dir {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	return name
}

// timeLimit says the time limit and whether it is provisional.
func timeLimit(pr *wire.Problem) string {
	if pr.TimeLimitProvisional {
		return ms(int64(pr.TimeLimitMS)) + " (provisional: verify derives it from the accepted submissions)"
	}
	return ms(int64(pr.TimeLimitMS))
}

// verifiedText sums up a version's latest verification.
func verifiedText(v *wire.VerifySummary) string {
	if v == nil {
		return "never"
	}
	return fmt.Sprintf("%s: %s (verification %d, %s)", v.State, v.Summary, v.ID, stamp(v.CreatedAt))
}

// readPackage reads the package at src (info is its stat): a directory is zipped, a file
// sent as it is. An empty *id becomes the problem id the package's name gives.
func readPackage(src string, info os.FileInfo, id *string) ([]byte, error) {
	var pkg []byte
	var err error
	if info.IsDir() {
		if pkg, err = zipDir(src); err != nil {
			return nil, err
		}
	} else if pkg, err = os.ReadFile(src); err != nil {
		return nil, err
	}
	if *id == "" {
		*id = defaultProblemID(src, info.IsDir())
	}
	return pkg, nil
}

// zipDir packs dir's files with paths relative to it (forward slashes). A symlink to a
// file inside dir is packed as a link (the server resolves it inside the package: the
// Kattis format links test files); any other symlink and special files are refused
// rather than followed: following one could upload a file from outside the package.
func zipDir(dir string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		link := d.Type()&fs.ModeSymlink != 0
		target := ""
		switch {
		case d.IsDir():
			return nil
		case link:
			if target, err = insideLink(dir, path); err != nil {
				return err
			}
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: not a regular file (special files cannot go into a package)", path)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := zip.FileInfoHeader(info)
		if err != nil {
			return err
		}
		hdr.Name, hdr.Method = filepath.ToSlash(rel), zip.Deflate
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if link {
			_, err = w.Write([]byte(target))
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("zip %s: %w", dir, err)
	}
	return buf.Bytes(), nil
}

// insideLink returns the target of the symlink at path, refusing one that is absolute,
// leaves dir or does not end at a regular file inside dir.
func insideLink(dir, path string) (string, error) {
	target, err := os.Readlink(path)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(target) {
		return "", fmt.Errorf("%s: a symlink to %s, an absolute path (only relative links inside the package can go into it)", path, target)
	}
	abs, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s: a symlink to %s, which cannot be followed: %w", path, target, err)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: a symlink to %s, outside the package (only links inside it can go into it)", path, target)
	}
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: a symlink to %s, which is not a file", path, target)
	}
	return filepath.ToSlash(target), nil
}

// uploadProgress counts the bytes the HTTP client reads and redraws one status line on
// the terminal, at most ten times a second.
type uploadProgress struct {
	r     io.Reader
	w     io.Writer
	id    string
	total int64

	mu    sync.Mutex
	sent  int64
	drawn time.Time
	shown bool
}

func (u *uploadProgress) Read(b []byte) (int, error) {
	n, err := u.r.Read(b)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sent += int64(n)
	if now := time.Now(); now.Sub(u.drawn) >= 100*time.Millisecond || u.sent == u.total {
		u.drawn, u.shown = now, true
		pct := 100 * u.sent / max(u.total, 1)
		fmt.Fprintf(u.w, "\ruploading %s: %s of %s (%d%%)\x1b[K", u.id, humanize.IBytes(uint64(u.sent)), humanize.IBytes(uint64(u.total)), pct)
	}
	return n, err
}

// finish ends the status line; nil-safe, so callers need not check whether one is shown.
func (u *uploadProgress) finish() {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.shown {
		fmt.Fprintln(u.w)
	}
}

// shownCases says which cases' output a submission's owner sees: every case when the
// tests are public, else the samples.
func shownCases(pr *wire.Problem) string {
	switch {
	case pr.PublicTests:
		return "every case (public_tests)"
	case len(pr.Samples) == 0:
		return "no case (no samples)"
	}
	s := make([]string, len(pr.Samples))
	for i, c := range pr.Samples {
		s[i] = itoa(c)
	}
	return "samples " + strings.Join(s, ", ")
}
