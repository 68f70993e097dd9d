package lang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// JavaMainClass returns the class a Java source is run as, the way Kattis and DOMjudge
// take it: the public top-level class (javac requires its file to carry its name);
// without one, the first top-level class that declares a main method; without one, the
// first top-level class. With a package declaration the class is qualified
// (pkg.Name). "" when the source declares no class (the compiler then says why).
//
// The scanner reads tokens, skipping comments, string and character literals and text
// blocks, so a class named in a comment or a string is never taken.
func JavaMainClass(src string) string {
	toks := javaTokens(src)
	var pkg []string
	type decl struct {
		name    string
		public  bool
		hasMain bool
	}
	var decls []decl
	depth := 0
	public := false // `public` seen among the current top-level declaration's modifiers
	cur := -1       // index in decls of the top-level type whose body we are in
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		switch t {
		case "{":
			depth++
			continue
		case "}":
			depth--
			if depth <= 0 {
				depth, cur, public = 0, -1, false
			}
			continue
		}
		if depth == 0 {
			switch t {
			case ";":
				public = false
			case "public":
				public = true
			case "package":
				pkg = pkg[:0]
				for k++; k < len(toks) && toks[k] != ";"; k++ {
					if toks[k] != "." {
						pkg = append(pkg, toks[k])
					}
				}
			case "class", "interface", "enum", "record":
				if k+1 < len(toks) && isJavaIdent(toks[k+1]) {
					decls = append(decls, decl{name: toks[k+1], public: public})
					cur = len(decls) - 1
					k++
				}
				public = false
			}
			continue
		}
		// A main method of the top-level type: `void main (` in its body.
		if depth == 1 && cur >= 0 && t == "main" && k > 0 && toks[k-1] == "void" && k+1 < len(toks) && toks[k+1] == "(" {
			decls[cur].hasMain = true
		}
	}
	pick := ""
	for _, d := range decls {
		if d.public {
			pick = d.name
			break
		}
	}
	if pick == "" {
		for _, d := range decls {
			if d.hasMain {
				pick = d.name
				break
			}
		}
	}
	if pick == "" && len(decls) > 0 {
		pick = decls[0].name
	}
	if pick == "" {
		return ""
	}
	for _, p := range pkg {
		if !isJavaIdent(p) {
			return pick
		}
	}
	if len(pkg) > 0 {
		return strings.Join(pkg, ".") + "." + pick
	}
	return pick
}

// javaTokens splits a Java source into identifiers and single punctuation characters,
// dropping comments, literals and whitespace.
func javaTokens(src string) []string {
	var out []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += j + 4
		case strings.HasPrefix(src[i:], `"""`):
			j := strings.Index(src[i+3:], `"""`)
			for j >= 0 && escaped(src[i+3:], j) {
				k := strings.Index(src[i+3+j+1:], `"""`)
				if k < 0 {
					j = -1
					break
				}
				j += 1 + k
			}
			if j < 0 {
				return out
			}
			i += j + 6
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		default:
			r, size := utf8.DecodeRuneInString(src[i:])
			if isJavaStart(r) {
				j := i + size
				for j < len(src) {
					r, s := utf8.DecodeRuneInString(src[j:])
					if !isJavaPart(r) {
						break
					}
					j += s
				}
				out = append(out, src[i:j])
				i = j
				continue
			}
			if !unicode.IsSpace(r) && !unicode.IsDigit(r) {
				out = append(out, string(r))
			}
			i += size
		}
	}
	return out
}

// escaped reports whether the quote at s[j] follows an odd number of backslashes.
func escaped(s string, j int) bool {
	n := 0
	for k := j - 1; k >= 0 && s[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

func isJavaStart(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) }
func isJavaPart(r rune) bool  { return isJavaStart(r) || unicode.IsDigit(r) }

// isJavaIdent reports whether s is an identifier usable as a class (and file) name.
func isJavaIdent(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i, r := range s {
		if !isJavaPart(r) || (i == 0 && !isJavaStart(r)) {
			return false
		}
	}
	switch s {
	case "class", "interface", "enum", "record", "public", "static", "void", "extends", "implements":
		return false
	}
	return true
}
