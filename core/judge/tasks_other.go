//go:build !linux

package judge

import "os"

func mountTasks(workDir, tasksDir string, size int64) ([]string, error) {
	return nil, os.MkdirAll(tasksDir, 0o711)
}

func unmountTasks(dir string, size int64) error { return nil }

func growPipe(f *os.File, n int) {}
