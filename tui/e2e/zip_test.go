package e2e

import (
	"archive/zip"
	"bytes"
	"testing"
)

// aplusbZip is an A+B problem package: problem.yaml and three tests.
func aplusbZip(t *testing.T) []byte {
	t.Helper()
	files := map[string]string{
		"problem.yaml": "title: A+B\ntime_limit_ms: 1000\nmemory_limit_mb: 128\n",
		"tests/1.in":   "1 2\n", "tests/1.out": "3\n",
		"tests/2.in": "10 20\n", "tests/2.out": "30\n",
		"tests/3.in": "-5 5\n", "tests/3.out": "0\n",
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
