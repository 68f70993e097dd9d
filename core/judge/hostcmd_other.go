//go:build !linux

package judge

import (
	"context"
	"os/exec"
)

// runOnHost runs a build outside the sandbox and returns its combined output.
func runOnHost(ctx context.Context, dir string, env []string, argv []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	return cmd.CombinedOutput()
}
