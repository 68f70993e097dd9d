package main

import (
	"net"
	"testing"

	"github.com/spf13/cobra"
)

// A user token on an admin command: exit 1, and first that the token is not an admin
// token and how to get one, then the server, HTTP 403 and the server's reason.
func TestUserTokenIsRefusedOnAdminCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	user := e.userToken
	for _, args := range [][]string{
		{"overview"}, {"pel"}, {"outbox"}, {"dlq", "ls"}, {"workers"}, {"audit"}, {"token", "ls"},
		{"trace", "00000000-0000-0000-0000-000000000000"},
		{"dlq", "replay", "--all", "--yes"}, {"trim", "--safe", "--yes"}, {"reclaim", "--dry-run"},
		{"rejudge", "--problem", "aplusb", "--yes"},
	} {
		r := e.exec(run{args: args, token: &user})
		wantCode(t, r, 1)
		wantIn(t, "stderr", r.stderr, "ojctl: "+e.url+": this token is not an admin token: this command needs one",
			"ojd token create --name NAME --role admin", "HTTP 403 forbidden: this route needs an admin token")
	}
	// A user command works with the user token; submissions lists the user's own.
	wantCode(t, e.exec(run{args: []string{"languages"}, token: &user}), 0)
	wantCode(t, e.exec(run{args: []string{"submissions"}, token: &user}), 0)
}

// A missing or unknown token: 401, and where tokens come from.
func TestBadTokenSaysWhereTokensComeFrom(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tok := range []string{"", "oj_not_a_token"} {
		r := e.exec(run{args: []string{"overview"}, token: &tok})
		wantCode(t, r, 1)
		wantIn(t, "stderr", r.stderr, e.url, "HTTP 401", "token is missing or invalid", "ojd token create")
	}
}

// A server that does not answer is named in the error.
func TestUnreachableServerIsNamed(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	r := ojctlWith(t, map[string]string{"OJCTL_SERVER": dead, "HOME": t.TempDir()}, run{args: []string{"overview"}})
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "ojctl: "+dead+": cannot reach the server")
	r = ojctlWith(t, map[string]string{"HOME": t.TempDir()}, run{args: []string{"dlq", "ls"}, server: dead})
	wantCode(t, r, 1)
}

// Usage errors exit 2 before anything is sent.
func TestUsageErrorsExitTwo(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, args := range [][]string{
		{"nosuchcommand"},
		{"overview", "--nosuchflag"},
		{"overview", "-o", "yaml"},
		{"trim"},
		{"trim", "--safe", "--maxlen", "5"},
		{"rejudge"},
		{"rejudge", "--submission", "x", "--problem", "p"},
		{"dlq", "replay"},
		{"dlq", "replay", "x", "--all"},
		{"status"},
		{"cancel"},
		{"trace", "a", "b"},
		{"dash", "--refresh", "500ms"},
		{"--context", "nope", "overview"},
	} {
		// The server is unreachable: a usage error must be reported before any call.
		r := ojctlWith(t, map[string]string{"OJCTL_SERVER": "http://127.0.0.1:1", "HOME": home}, run{args: args, tty: true})
		if r.code != 2 {
			t.Fatalf("%v: want exit 2\n%s", args, r)
		}
	}
}

// ojctl with no arguments and no terminal prints its help.
func TestNoArgumentsWithoutATerminalPrintsHelp(t *testing.T) {
	t.Parallel()
	r := ojctlWith(t, map[string]string{"HOME": t.TempDir()}, run{})
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Usage:", "ojctl [command]", "Exit codes")
}

// Every command's help has a summary, a description and examples.
func TestEveryCommandTeachesItself(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&app{getenv: func(string) string { return "" }})
	for _, c := range allCommands(root) {
		if c.Name() == "help" || c.Name() == "completion" || c.Parent() != nil && c.Parent().Name() == "completion" {
			continue
		}
		if c.Short == "" || c.Long == "" || c.Example == "" {
			t.Errorf("%s: Short, Long and Example are all needed", c.CommandPath())
		}
	}
}

func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}
