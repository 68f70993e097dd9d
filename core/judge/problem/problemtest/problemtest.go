// Package problemtest builds problem packages for tests.
package problemtest

import (
	"archive/zip"
	"bytes"
	"fmt"
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
