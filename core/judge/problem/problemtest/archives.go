package problemtest

// Packages as public contest archives hold them, written for oj's tests from the
// formats' descriptions: what problem setters ship, editorials and scripts included.

// PolygonWithTutorials is a Polygon full package (in the folder "twice/") with a
// tutorial in every place Polygon puts one: listed under <tutorials> as TeX, HTML and
// PDF beside the statements, in problem-properties.json, and in statement-sections/.
// Its statements reference an image (TeX), an image and a stylesheet (HTML) and the
// example files (olymp.sty's \exmpfile).
func PolygonWithTutorials() map[string]string {
	const xml = `<?xml version="1.0" encoding="utf-8"?>
<problem revision="7" short-name="twice">
  <names><name language="english" value="Twice"/></names>
  <statements>
    <statement charset="UTF-8" language="english" path="statements/english/problem.tex" type="application/x-tex"/>
    <statement charset="UTF-8" language="english" path="statements/.html/english/problem.html" type="text/html"/>
    <statement language="english" path="statements/.pdf/english/problem.pdf" type="application/pdf"/>
  </statements>
  <tutorials>
    <tutorial charset="UTF-8" language="english" path="statements/english/tutorial.tex" type="application/x-tex"/>
    <tutorial charset="UTF-8" language="english" path="statements/.html/english/tutorial.html" type="text/html"/>
    <tutorial language="english" path="statements/.pdf/english/tutorial.pdf" type="application/pdf"/>
  </tutorials>
  <judging input-file="" output-file="">
    <testset name="tests">
      <time-limit>1000</time-limit><memory-limit>268435456</memory-limit><test-count>2</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern><answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests><test method="manual" sample="true"/><test method="manual"/></tests>
    </testset>
  </judging>
  <assets><checker name="std::wcmp.cpp" type="testlib"><source path="files/check.cpp" type="cpp.g++17"/></checker></assets>
</problem>
`
	return map[string]string{
		"twice/problem.xml": xml,
		"twice/tests/01":    "1\n",
		"twice/tests/01.a":  "2\n",
		"twice/tests/02":    "5\n",
		"twice/tests/02.a":  "10\n",
		"twice/statements/english/problem.tex": "\\begin{problem}{Twice}{standard input}{standard output}{1 second}{256 megabytes}\n" +
			"Print twice the number. % \\includegraphics{tutorial-figure.png} is a comment\n" +
			"\\begin{center}\\includegraphics[width=5cm]{twice.png}\\end{center}\n" +
			"\\Examples\n\\begin{example}\n\\exmpfile{example.01}{example.01.a}%\n\\end{example}\n\\end{problem}\n",
		"twice/statements/english/twice.png":               "PNG twice",
		"twice/statements/english/tutorial-figure.png":     "PNG EDITORIAL figure",
		"twice/statements/english/example.01":              "1\n",
		"twice/statements/english/example.01.a":            "2\n",
		"twice/statements/english/legend.tex":              "Print twice the number.\n",
		"twice/statements/english/tutorial.tex":            "EDITORIAL: multiply by two.\n",
		"twice/statements/english/problem-properties.json": `{"legend":"Print twice the number.","tutorial":"EDITORIAL: multiply by two."}`,
		"twice/statements/.html/english/problem.html": "<html><head><link rel=\"stylesheet\" href=\"problem-statement.css\"></head>" +
			"<body><p>Print twice the number.</p><img src=\"twice.png\"><a href=\"tutorial.html\">the tutorial</a>" +
			"<script src=\"https://polygon.codeforces.com/lib/MathJax/MathJax.js\"></script></body></html>",
		"twice/statements/.html/english/problem-statement.css": "body { background: url('paper.png') }\n",
		"twice/statements/.html/english/paper.png":             "PNG paper",
		"twice/statements/.html/english/twice.png":             "PNG twice",
		"twice/statements/.html/english/tutorial.html":         "<p>EDITORIAL: multiply by two.</p>",
		"twice/statements/.pdf/english/problem.pdf":            "%PDF statement",
		"twice/statements/.pdf/english/tutorial.pdf":           "%PDF EDITORIAL",
		"twice/statement-sections/english/legend.tex":          "Print twice the number.\n",
		"twice/statement-sections/english/tutorial.tex":        "EDITORIAL: multiply by two.\n",
	}
}

// LegacyKattisUnnamed is a legacy Kattis package as contest archives ship one: no name
// in problem.yaml (its statements name it, Swedish by a plainproblemname line), generator
// scripts beside the test folders, and solution slides beside the statement, one of
// them input by a statement source that is not the statement's and one by the
// statement itself, and a link stub from the statement folder into data/secret.
func LegacyKattisUnnamed() map[string]string {
	return map[string]string{
		"problem.yaml":       "source: NCPC\nlicense: cc by-sa\nlimits:\n  time_limit: 1\n",
		"data/gen.sh":        "#!/bin/sh\npython3 gen_random.py > secret/2.in\n",
		"data/generator.sh":  "#!/bin/sh\n./gen.sh\n",
		"data/gen_random.py": "print(5)\n",
		"data/sample/1.in":   "1\n",
		"data/sample/1.ans":  "2\n",
		"data/secret/1.in":   "7\n",
		"data/secret/1.ans":  "14\n",
		"problem_statement/problem.en.tex": "\\problemname{Twice the Number}\n" +
			"\\illustration{0.3}{twice.png}{Twice as much.}\n" +
			"Print twice the number.\n\\section*{Input}\nOne integer, such as \\input{secret.in}\n" +
			"\\ifsolutions\\input{solution}\\fi\n",
		"problem_statement/secret.in": "../data/secret/1.in",
		"problem_statement/problem.sv.tex": "%% plainproblemname: Dubbla talet\n\\problemname{Dubbla \\emph{talet}}\n" +
			"Skriv ut det dubbla talet. \\input{notes}\n",
		"problem_statement/notes.tex":           "Se figuren: \\includegraphics{figs/sv}\n",
		"problem_statement/figs/sv.png":         "PNG sv",
		"problem_statement/twice.png":           "PNG twice",
		"problem_statement/unused.png":          "PNG unused",
		"problem_statement/solution.tex":        "EDITORIAL: multiply by two.\n",
		"problem_statement/solution-slides.tex": "\\begin{frame}EDITORIAL slides\\end{frame}\n",
		"problem_statement/slides.tex":          "\\input{solution-slides}\n",
	}
}

// DOMjudgeStyle is a package as DOMjudge exports one: problem.yaml, its statement as
// problem.pdf at the top, domjudge-problem.ini, and the test data.
func DOMjudgeStyle() map[string]string {
	return map[string]string{
		"problem.yaml":         "name: Twice\nlimits:\n  time_limit: 1\n",
		"domjudge-problem.ini": "name='Twice'\ntimelimit='1'\n",
		"problem.pdf":          "%PDF statement",
		"data/sample/1.in":     "1\n",
		"data/sample/1.ans":    "2\n",
		"data/secret/1.in":     "7\n",
		"data/secret/1.ans":    "14\n",
	}
}
