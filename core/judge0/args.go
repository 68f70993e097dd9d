package judge0

import (
	"errors"
	"strings"
)

// Judge0 writes command_line_arguments and compiler_options into a bash script, after
// removing the characters it considers dangerous there: $ & ; < > | and the backquote
// (isolate_job.rb). oj never runs a shell: it removes the same characters, so what is
// left means what it meant to Judge0, then splits the rest into words as bash would
// (blanks separate words; single quotes, double quotes and backslashes quote; a word
// starting with # starts a comment) and hands the words to the program as its argv.
// Nothing is expanded: with $ and ` gone there are no variables or substitutions, and
// globs, braces and ~ are passed as typed (documented in docs/judge0.md).

// Stripped are the characters Judge0 removes from both strings before they reach bash.
const Stripped = "$&;<>|`"

// MaxArgsLength bounds each of the two strings (bytes, before stripping).
const MaxArgsLength = 512

// ErrUnterminatedQuote is a quote opened and never closed: bash refuses the script.
var ErrUnterminatedQuote = errors.New("has an unterminated quote")

// ErrLineBreak is a line break inside the string: in Judge0's script it would start a
// second command, which oj never runs.
var ErrLineBreak = errors.New("must be one line: a line break would start another command")

// ErrParenthesis is an unquoted ( or ): bash refuses the script with a syntax error.
var ErrParenthesis = errors.New("has an unquoted parenthesis, which bash refuses as a syntax error")

// SplitArgs is s as Judge0's bash would pass it to the program: trimmed, the Stripped
// characters removed, then split into words.
func SplitArgs(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(Stripped, r) {
			return -1
		}
		return r
	}, s)
	if strings.ContainsAny(s, "\n\r") {
		return nil, ErrLineBreak
	}
	var (
		words []string
		cur   strings.Builder
		in    bool // a word has started (even an empty quoted one)
	)
	end := func() {
		if in {
			words = append(words, cur.String())
		}
		cur.Reset()
		in = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '#' && !in:
			end()
			return words, nil
		case c == '(' || c == ')':
			return nil, ErrParenthesis
		case c == '\\':
			in = true
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, ErrUnterminatedQuote
			}
			in = true
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				// Inside double quotes a backslash quotes only " \ (and $ ` , gone).
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, ErrUnterminatedQuote
			}
			i = j
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	end()
	return words, nil
}
