package problem

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// A package's public part is its statement and the files the statement references;
// everything else a statement folder holds (editorials, solution slides, the sources a
// converter kept, properties files) is admin-only. In oj's package the two sit apart:
// statement/ is public, private/ is the admin-only rest, both under the same relative
// names, so GET …/statement/{path} finds either by one name. A DOMjudge-style
// problem.pdf (.html, .txt) at the package's top is statement material too.

// Folders of oj's package holding statement material: public, and admin-only.
const (
	PublicDir  = "statement/"
	PrivateDir = "private/"
)

// topStatements are the DOMjudge-style statement files a package may hold at its top.
var topStatements = []string{"problem.pdf", "problem.html", "problem.txt"}

// IsTopStatement reports whether name is a DOMjudge-style statement at a package's top.
func IsTopStatement(name string) bool { return slices.Contains(topStatements, name) }

// StatementFiles maps the names under which a package's statement material is served
// (GET …/statement/{name}) to the files holding it: public for any token, private for
// admins only.
func (p *Package) StatementFiles() (public, private map[string]string) {
	public, private = map[string]string{}, map[string]string{}
	for f := range p.files {
		if rest, ok := strings.CutPrefix(f, PublicDir); ok {
			public[rest] = f
		} else if rest, ok := strings.CutPrefix(f, PrivateDir); ok {
			private[rest] = f
		}
	}
	for _, f := range topStatements {
		if _, ok := p.files[f]; ok {
			if _, taken := public[f]; !taken {
				public[f] = f
			}
		}
	}
	for rest := range private {
		if _, ok := public[rest]; ok {
			delete(private, rest) // the public file of that name is what is served
		}
	}
	return public, private
}

// Names returns m's keys, sorted.
func Names(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// maxStatementText bounds a statement source read for the files it references.
const maxStatementText = 4 << 20

// texRef matches the TeX commands that bring a file into a statement: graphics
// (graphicx, problemtools' \illustration{width}{file}{caption}), inputs, and Polygon's
// olymp.sty example files (\exmpfile{input}{answer}).
var texRef = regexp.MustCompile(`\\(includegraphics|illustration|input|include|exmpfile|epsfig|import|subimport)\*?\s*(\[[^\]]*\])?\s*\{([^{}]*)\}(\s*\{([^{}]*)\})?`)

// htmlRef matches the attributes through which HTML loads or links a file; cssRef a
// stylesheet's url(…).
var (
	htmlRef = regexp.MustCompile(`(?i)\b(?:src|href|data|poster)\s*=\s*("([^"]*)"|'([^']*)')`)
	cssRef  = regexp.MustCompile(`(?i)url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]+))\s*\)`)
	// mdRef is a Markdown image or link target: ![alt](target "title"), [text](target).
	mdRef = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
)

// StatementRefs returns the relative references a statement source makes to other
// files, as written (not yet resolved), by its kind: TeX, Markdown, HTML or CSS. Other
// files (a PDF) reference nothing.
func StatementRefs(name string, body []byte) []string {
	text := string(body)
	var refs []string
	switch strings.ToLower(path.Ext(name)) {
	case ".tex", ".sty":
		text = stripTeXComments(text)
		for _, m := range texRef.FindAllStringSubmatch(text, -1) {
			switch m[1] {
			case "illustration":
				// \illustration{width}{file}{caption}: the file is the second argument.
				refs = append(refs, m[5])
			case "exmpfile":
				refs = append(refs, m[3], m[5])
			case "import", "subimport":
				refs = append(refs, path.Join(m[3], m[5]))
			case "epsfig":
				if _, f, ok := strings.Cut(m[3], "file="); ok {
					f, _, _ = strings.Cut(f, ",")
					refs = append(refs, f)
				}
			default:
				refs = append(refs, m[3])
			}
		}
	case ".md", ".markdown":
		for _, m := range mdRef.FindAllStringSubmatch(text, -1) {
			refs = append(refs, m[1])
		}
		refs = append(refs, htmlRefs(text)...) // raw HTML inside Markdown
	case ".html", ".htm", ".xhtml":
		refs = append(refs, htmlRefs(text)...)
	case ".css":
		for _, m := range cssRef.FindAllStringSubmatch(text, -1) {
			refs = append(refs, m[1]+m[2]+m[3])
		}
	}
	out := refs[:0]
	for _, r := range refs {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

func htmlRefs(text string) []string {
	var refs []string
	for _, m := range htmlRef.FindAllStringSubmatch(text, -1) {
		refs = append(refs, m[2]+m[3])
	}
	for _, m := range cssRef.FindAllStringSubmatch(text, -1) {
		refs = append(refs, m[1]+m[2]+m[3])
	}
	return refs
}

// stripTeXComments drops what follows an unescaped % on each line.
func stripTeXComments(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		for j := 0; j < len(l); j++ {
			if l[j] == '\\' {
				j++
				continue
			}
			if l[j] == '%' {
				lines[i] = l[:j]
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}

// texGraphicsExts are the extensions TeX tries for \includegraphics{name} without one.
var texGraphicsExts = []string{".pdf", ".png", ".jpg", ".jpeg", ".eps", ".svg", ".gif"}

// ResolveRef resolves ref, written in the file from, to a file name of the package:
// "" when it is no file of the package (a URL, an absolute path, an anchor, a path
// leaving the package, a name that does not exist). A TeX name without extension is
// looked for as TeX does (name.tex for an input, name.pdf, name.png … for graphics).
func ResolveRef(from, ref string, has func(string) bool) string {
	if u, err := url.Parse(ref); err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return ""
	}
	if i := strings.IndexAny(ref, "?#"); i >= 0 {
		ref = ref[:i]
	}
	if unq, err := url.PathUnescape(ref); err == nil {
		ref = unq
	}
	if ref == "" || strings.HasPrefix(ref, "/") || strings.Contains(ref, "\\") {
		return ""
	}
	name := path.Clean(path.Join(path.Dir(from), ref))
	if name == "." || name == ".." || strings.HasPrefix(name, "../") {
		return ""
	}
	if has(name) {
		return name
	}
	if path.Ext(ref) == "" {
		for _, ext := range append([]string{".tex"}, texGraphicsExts...) {
			if has(name + ext) {
				return name + ext
			}
		}
	}
	return ""
}

// Referenced returns the closure of roots under the references their sources make:
// roots, and every file a root (or a file it brings in) references that allowed
// accepts, sorted. Refused are the references that name a file of the package which
// allowed turned down (they stay private), sorted.
func (s *Source) Referenced(roots []string, allowed func(string) bool) (public, refused []string) {
	seen := map[string]bool{}
	turned := map[string]bool{}
	queue := slices.Clone(roots)
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if seen[f] || !s.Has(f) {
			continue
		}
		seen[f] = true
		if s.Size(f) > maxStatementText {
			continue
		}
		body, err := s.ReadFile(f, maxStatementText)
		if err != nil {
			continue // not read, so references nothing: what it names stays private
		}
		for _, ref := range StatementRefs(f, body) {
			to := ResolveRef(f, ref, s.Has)
			switch {
			case to == "" || seen[to]:
			case !allowed(to):
				turned[to] = true
			default:
				queue = append(queue, to)
			}
		}
	}
	for f := range seen {
		public = append(public, f)
	}
	for f := range turned {
		if !seen[f] {
			refused = append(refused, f)
		}
	}
	sort.Strings(public)
	sort.Strings(refused)
	return public, refused
}

// Resolved returns the file whose bytes name holds: the file a symlink or a link stub
// resolves to, else name itself.
func (s *Source) Resolved(name string) string {
	if t := s.LinkTarget(name); t != "" {
		return t
	}
	if t := s.LinkStub(name); t != "" {
		return t
	}
	return name
}
