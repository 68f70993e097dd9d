package testenv

import (
	"os"
	"testing"
)

// VarTmpDir makes a directory (mode 0755) under /var/tmp, not /tmp: the sandbox hides
// /tmp, so a judge's work dir must live elsewhere. After the test, whatever is still
// mounted under it is detached (a worker killed before its shutdown leaves its tasks
// tmpfs mounted) and the directory is removed.
func VarTmpDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		unmountUnder(dir)
		if err := os.RemoveAll(dir); err != nil {
			t.Logf("leaving %s: %v", dir, err)
		}
	})
	return dir
}
