//go:build linux

package seccomp

import "testing"

func TestBuildExportsBPF(t *testing.T) {
	b, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || len(b)%8 != 0 {
		t.Fatalf("BPF program of %d bytes, want a non-empty multiple of 8", len(b))
	}
	if len(b)/8 > 4096 {
		t.Fatalf("BPF program too long: %d instructions", len(b)/8)
	}
}
