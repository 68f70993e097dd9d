// Package problemtest builds problem packages for tests.
package problemtest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Zip returns a zip holding files (name → content), in name order.
func Zip(files map[string]string) []byte {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			panic(err)
		}
		if _, err := w.Write([]byte(files[n])); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Cases adds tests/<i>.in and tests/<i>.out for each pair (input, answer) to files.
func Cases(files map[string]string, pairs ...[2]string) map[string]string {
	for i, p := range pairs {
		files[fmt.Sprintf("tests/%d.in", i+1)] = p[0]
		files[fmt.Sprintf("tests/%d.out", i+1)] = p[1]
	}
	return files
}

// APlusB is a valid A+B package's files with the given problem.yaml.
func APlusB(yaml string) map[string]string {
	return Cases(map[string]string{"problem.yaml": yaml},
		[2]string{"1 2\n", "3\n"}, [2]string{"10 20\n", "30\n"}, [2]string{"-5 5\n", "0\n"})
}

// ZipDir zips the folder dir (its content, paths relative to it). A symlink becomes a
// symlink entry holding its target, as zip(1) -y stores one: the readers resolve it.
func ZipDir(dir string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." || d.IsDir() {
			return err
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
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			_, err = w.Write([]byte(target))
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	return buf.Bytes(), err
}

// SharedProblems returns the folder of real problem packages kept beside the
// repository: $OJ_SHARED_PROBLEMS when set, else ../shared/problems from the
// repository's root, found from the test's working directory (never an absolute path
// of one machine: a fresh clone elsewhere finds its own neighbour or nothing). "" when
// it is absent, and the tests that use it skip saying so.
func SharedProblems() string {
	if p := os.Getenv("OJ_SHARED_PROBLEMS"); p != "" {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		return ""
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "..", "shared", "problems")
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return p
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
