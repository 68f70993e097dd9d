package main

import (
	"context"

	"github.com/spf13/cobra"

	"oj/core/api/client"
)

// The two shapes most commands take: one that reads something and prints it (a table, or
// with -o json the server's answer as is), and one that acts on a set through mutate's
// dry-run / confirm / do protocol and prints the audited answer.

// fetched is RunE of a command that reads one thing and prints it: fetch asks the server
// (the command's flags are its filters), table prints it for -o table.
func fetched[T any](a *app, fetch func(cmd *cobra.Command, c *client.Client, args []string) (T, error),
	table func(p *printer, v T)) func(*cobra.Command, []string) error {
	return a.run(func(cmd *cobra.Command, args []string) error {
		c, err := a.client()
		if err != nil {
			return err
		}
		v, err := fetch(cmd, c, args)
		if err != nil {
			return err
		}
		return a.print(v, func(p *printer) { table(p, v) })
	})
}

// act is RunE of a command that changes something: m says, once the client is made,
// what the command does and how (an error of m is the command's: a bad flag).
func (a *app) act(s *safety, m func(cmd *cobra.Command, c *client.Client, args []string) (mutation, error)) func(*cobra.Command, []string) error {
	return a.run(func(cmd *cobra.Command, args []string) error {
		c, err := a.client()
		if err != nil {
			return err
		}
		mu, err := m(cmd, c, args)
		if err != nil {
			return err
		}
		return a.mutate(cmd, *s, mu)
	})
}

// answered is a mutation's call made of one API call: its answer is the result printed
// with -o json, and effectOf reads from it the counts and the table's rows.
func answered[R any](call func(ctx context.Context, dry bool) (R, error),
	effectOf func(r R, dry bool) effect) func(context.Context, bool) (effect, error) {
	return func(ctx context.Context, dry bool) (effect, error) {
		r, err := call(ctx, dry)
		if err != nil {
			return effect{}, err
		}
		eff := effectOf(r, dry)
		eff.result = r
		return eff, nil
	}
}
