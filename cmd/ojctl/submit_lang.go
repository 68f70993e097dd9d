package main

// languageByExt guesses --lang from the file's extension, lower-cased: one language
// per extension, the oldest standard where a language has several (C11, C++17) and
// CPython for .py; the others are asked for with --lang. Fixed-form Fortran (.f, .for)
// is not guessed: the judge compiles Fortran as free form.
var languageByExt = map[string]string{
	".c":     "c11",
	".cpp":   "cpp17",
	".cc":    "cpp17",
	".cxx":   "cpp17",
	".c++":   "cpp17",
	".py":    "python3",
	".go":    "go",
	".java":  "java17",
	".rs":    "rust",
	".kt":    "kotlin",
	".scala": "scala",
	".cs":    "csharp",
	".js":    "javascript",
	".ts":    "typescript",
	".hs":    "haskell",
	".ml":    "ocaml",
	".pas":   "pascal",
	".f90":   "fortran",
	".f95":   "fortran",
	".f03":   "fortran",
	".f08":   "fortran",
	".lua":   "lua",
	".pl":    "perl",
	".pm":    "perl",
	".sh":    "bash",
	".rb":    "ruby",
	".php":   "php",
	".r":     "r",
}
