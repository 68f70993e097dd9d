package judge0

import (
	"sort"

	"oj/core/judge/lang"
)

// A Judge0 language id and the oj languages that serve it, in order of preference: the
// first one configured answers. Family is the start of Judge0's name for it ("C++",
// "Python"), which clients match on; Judge0 names the version in parentheses, oj puts its
// own language there.
type languageID struct {
	ID     int
	Family string
	OJ     []string
}

// languageIDs are Judge0 CE 1.13.1's active ids and those of the hosted Judge0 CE
// (1.14 and its extra languages) for every language oj offers. Several Judge0 ids reach
// one oj language: a client written for the old ids (54, 71) and one written for the new
// (105, 100) both keep working.
var languageIDs = []languageID{
	{46, "Bash", []string{"bash"}},
	{50, "C", []string{"c17", "c11"}},
	{51, "C#", []string{"csharp"}},
	{54, "C++", []string{"cpp17", "cpp20", "cpp23"}},
	{59, "Fortran", []string{"fortran"}},
	{60, "Go", []string{"go"}},
	{61, "Haskell", []string{"haskell"}},
	{62, "Java", []string{"java17"}},
	{63, "JavaScript", []string{"javascript"}},
	{64, "Lua", []string{"lua"}},
	{65, "OCaml", []string{"ocaml"}},
	{67, "Pascal", []string{"pascal"}},
	{68, "PHP", []string{"php"}},
	{71, "Python", []string{"python3", "pypy3"}},
	{72, "Ruby", []string{"ruby"}},
	{73, "Rust", []string{"rust"}},
	{74, "TypeScript", []string{"typescript"}},
	{75, "C", []string{"c17", "c11"}},
	{76, "C++", []string{"cpp17", "cpp20", "cpp23"}},
	{78, "Kotlin", []string{"kotlin"}},
	{80, "R", []string{"r"}},
	{81, "Scala", []string{"scala"}},
	{85, "Perl", []string{"perl"}},
	{91, "Java", []string{"java17"}},
	{92, "Python", []string{"python3", "pypy3"}},
	{93, "JavaScript", []string{"javascript"}},
	{94, "TypeScript", []string{"typescript"}},
	{95, "Go", []string{"go"}},
	{97, "JavaScript", []string{"javascript"}},
	{98, "PHP", []string{"php"}},
	{99, "R", []string{"r"}},
	{100, "Python", []string{"python3", "pypy3"}},
	{101, "TypeScript", []string{"typescript"}},
	{102, "JavaScript", []string{"javascript"}},
	{103, "C", []string{"c17", "c11"}},
	{105, "C++", []string{"cpp20", "cpp17", "cpp23"}},
	{106, "Go", []string{"go"}},
	{107, "Go", []string{"go"}},
	{108, "Rust", []string{"rust"}},
	{109, "Python", []string{"python3", "pypy3"}},
	{111, "Kotlin", []string{"kotlin"}},
}

// Language is a Judge0 language id as oj serves it: the oj language behind it.
type Language struct {
	ID     int
	Name   string
	OJ     *lang.Language
	Family string
}

// Languages are the Judge0 ids that reach a configured oj language.
type Languages struct {
	byID map[int]Language
	ids  []int
}

// NewLanguages resolves the Judge0 ids against the configured languages. detected, when
// given, holds the names live workers announced for oj language ids, with the version
// their self-check found ("C++17 (g++ 12.2.0)"); a language no live worker announced is
// named without a version.
func NewLanguages(set *lang.Set, detected map[string]string) *Languages {
	ls := &Languages{byID: map[int]Language{}}
	for _, e := range languageIDs {
		for _, id := range e.OJ {
			l, ok := set.Get(id)
			if !ok {
				continue
			}
			detail := detected[id]
			if detail == "" {
				detail = l.DisplayName("")
			}
			ls.byID[e.ID] = Language{ID: e.ID, Name: e.Family + " (" + detail + ")", OJ: l, Family: e.Family}
			ls.ids = append(ls.ids, e.ID)
			break
		}
	}
	sort.Ints(ls.ids)
	return ls
}

// Get is the language behind a Judge0 id.
func (ls *Languages) Get(id int) (Language, bool) {
	l, ok := ls.byID[id]
	return l, ok
}

// All are the offered languages, by Judge0 id.
func (ls *Languages) All() []Language {
	out := make([]Language, 0, len(ls.ids))
	for _, id := range ls.ids {
		out = append(out, ls.byID[id])
	}
	return out
}

// LanguageBrief is an entry of GET /languages and /languages/all.
type LanguageBrief struct {
	ID         int    `json:"id"`
	Name       string `json:"name"`
	IsArchived *bool  `json:"is_archived,omitempty"`
}

// LanguageDetail is GET /languages/{id}.
type LanguageDetail struct {
	ID         int     `json:"id"`
	Name       string  `json:"name"`
	IsArchived bool    `json:"is_archived"`
	SourceFile string  `json:"source_file"`
	CompileCmd *string `json:"compile_cmd"`
	RunCmd     string  `json:"run_cmd"`
}
