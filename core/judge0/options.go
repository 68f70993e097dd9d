package judge0

import (
	"fmt"
	"regexp"
	"strings"
)

// Judge0 substitutes compiler_options into the compile command as typed, for any
// compiled language. oj takes only the options on its allow-list for the language:
// optimisation levels, language standards, warnings, macro definitions and the like —
// options that change how the source compiles, never where the compiler reads or writes
// (-o, -I, @file, -B, plugins, specs), so a submission cannot make the compiler read
// files of the worker or write outside its work dir.
var compilerOptions = map[string][]string{
	"c11":     gccOptions("c"),
	"c17":     gccOptions("c"),
	"cpp17":   gccOptions("c++"),
	"cpp20":   gccOptions("c++"),
	"cpp23":   gccOptions("c++"),
	"rust":    {`-O`, `-g`, `-C(opt-level=[0-3sz]|debug-assertions=(on|off|yes|no)|overflow-checks=(on|off|yes|no))`, `--edition=20(15|18|21|24)`, `--cfg=[A-Za-z_][A-Za-z0-9_]*`},
	"java17":  {`-g(:none|:lines|:vars|:source)?`, `-nowarn`, `-Xlint(:[a-z,-]+)?`, `-Werror`, `-deprecation`, `-parameters`},
	"haskell": {`-O[0-2]?`, `-W[a-z-]*`, `-Werror`, `-X[A-Za-z]+`},
	"pascal":  {`-O[1-4]?`, `-M(fpc|objfpc|delphi|tp|macpas|iso)`, `-C[ior]`, `-g`, `-v[ewnhi]+`},
	"fortran": append(gccCommon(), `-std=(f95|f2003|f2008|f2018|gnu|legacy)`, `-ffree-form`, `-ffixed-form`),
	"csharp":  {`-optimize[+-]?`, `-checked[+-]?`, `-unsafe[+-]?`, `-warn:[0-4]`, `-define:[A-Za-z_][A-Za-z0-9_;]*`, `-langversion:[A-Za-z0-9.]+`},
	"kotlin":  {`-nowarn`, `-Werror`, `-progressive`},
	"scala":   {`-deprecation`, `-feature`, `-unchecked`, `-Werror`, `-explain`},
	"typescript": {`--strict`, `--noImplicitAny`, `--strictNullChecks`, `--target`, `(ES3|ES5|ES6|ES20(15|16|17|18|19|20|21|22)|ESNext)`,
		`--noUnusedLocals`, `--noUnusedParameters`, `--alwaysStrict`},
	"ocaml": {`-unsafe`, `-noassert`, `-g`},
}

func gccCommon() []string {
	return []string{`-O[0-3sg]?`, `-Ofast`, `-g[0-3]?`, `-w`, `-W[A-Za-z0-9=+-]*`, `-pedantic(-errors)?`,
		`-D[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?`, `-U[A-Za-z_][A-Za-z0-9_]*`, `-l(m|pthread)`, `-pthread`,
		`-f(no-)?(exceptions|rtti|strict-aliasing|wrapv|trapv|inline|unroll-loops|omit-frame-pointer|fast-math|stack-protector|pic|PIC|pie|PIE|diagnostics-color)`,
		`-m(avx2?|sse[234.12]*|popcnt|bmi2?|fma|tune=native|arch=native)`}
}

func gccOptions(lang string) []string {
	std := `-std=(c89|c90|c99|c11|c17|c18|c2x|c23|gnu89|gnu90|gnu99|gnu11|gnu17|gnu18|gnu2x|gnu23)`
	if lang == "c++" {
		std = `-std=(c\+\+(98|03|11|14|17|20|2a|23|2b|26|2c)|gnu\+\+(98|03|11|14|17|20|2a|23|2b|26|2c))`
	}
	return append(gccCommon(), std)
}

var compiledOptions = func() map[string]*regexp.Regexp {
	out := map[string]*regexp.Regexp{}
	for id, pats := range compilerOptions {
		out[id] = regexp.MustCompile(`^(?:` + strings.Join(pats, "|") + `)$`)
	}
	return out
}()

// CompilerOptions checks the words of a compiler_options string for the oj language
// ojID: every word on its allow-list, or an error naming the first that is not.
func CompilerOptions(ojID string, words []string) error {
	if len(words) == 0 {
		return nil
	}
	re, ok := compiledOptions[ojID]
	if !ok {
		return fmt.Errorf("setting compiler options is not allowed for this language")
	}
	for _, w := range words {
		if !re.MatchString(w) {
			return fmt.Errorf("option %q is not on the list of options oj allows for this language (docs/judge0.md)", w)
		}
	}
	return nil
}
