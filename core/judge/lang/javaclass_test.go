package lang

import "testing"

func TestJavaMainClass(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"public class", "import java.util.*;\npublic class Different {\n public static void main(String[] a) {}\n}\n", "Different"},
		{"lower-case name", "public class hello { public static void main(String args[]) {} }", "hello"},
		{"public class after a helper", "class Node { int v; }\npublic final class Solve { static void main(String[] a) {} }", "Solve"},
		{"no public class: the one with main", "class Node { void walk() {} }\nclass Sol {\n  public static void main(String[] a) {}\n}", "Sol"},
		{"no main anywhere: the first class", "class A {}\nclass B {}", "A"},
		{"names in comments and strings are not classes",
			"// public class Fake {}\n/* public class Fake2 { void main( */\nclass Real { String s = \"public class Str {\"; char c = '{';\n" +
				"static String tb = \"\"\"\n  public class Block { \\\"\"\" }\n  \"\"\";\n public static void main(String[] a) {} }", "Real"},
		{"main of a nested class does not count", "class Outer { static class In { public static void main(String[] a) {} } }\nclass Other { public static void main(String[] a) {} }", "Other"},
		{"annotations and modifiers", "@SuppressWarnings(\"unused\")\npublic abstract class Base { public static void main(String[] a) {} }", "Base"},
		{"package", "package contest.a;\nimport java.io.*;\npublic class Main2 { public static void main(String[] a) {} }", "contest.a.Main2"},
		{"record and enum", "enum E { A, B }\npublic record R(int x) { public static void main(String[] a) {} }", "R"},
		{"unicode name", "public class Größe { public static void main(String[] a) {} }", "Größe"},
		{"nothing", "int x;", ""},
		{"unterminated comment", "public class A {} /* never ends", "A"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := JavaMainClass(c.src); got != c.want {
				t.Fatalf("JavaMainClass = %q, want %q", got, c.want)
			}
		})
	}
}

func TestEntryNamesTheFileAfterTheClass(t *testing.T) {
	java, _ := Default().Get("java17")
	if f, c := java.Entry("public class Different { public static void main(String[] a) {} }"); f != "Different.java" || c != "Different" {
		t.Fatalf("entry %q %q", f, c)
	}
	if f, c := java.Entry("package p.q; public class X { public static void main(String[] a) {} }"); f != "X.java" || c != "p.q.X" {
		t.Fatalf("entry with a package %q %q", f, c)
	}
	if f, c := java.Entry("garbage"); f != "Main.java" || c != "Main" {
		t.Fatalf("entry without a class %q %q", f, c)
	}
	cpp, _ := Default().Get("cpp17")
	if f, _ := cpp.Entry("class Foo {};"); f != "main.cpp" {
		t.Fatalf("cpp entry %q", f)
	}
}

func FuzzJavaMainClass(f *testing.F) {
	f.Add("public class A { public static void main(String[] a) {} }")
	f.Add("\"\"\"\\\"\"\"")
	f.Add("package a.b; class C {}")
	f.Fuzz(func(t *testing.T, src string) {
		c := JavaMainClass(src)
		if c == "" {
			return
		}
		for _, part := range splitDots(c) {
			if !isJavaIdent(part) {
				t.Fatalf("class %q from %q is not an identifier", c, src)
			}
		}
	})
}

func splitDots(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
