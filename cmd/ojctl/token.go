package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newTokenCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke API tokens (admin token)",
		Long: `Manage the API's tokens over the admin API (audited), without access to PostgreSQL.

Roles: user (submits; reads its own submissions), reader (reads every submission, the
results feed and the problems, and changes nothing — what a site's backend follows results
with), admin (everything). A token may carry its own submit bounds: --rate and --burst
(its token bucket) and --max-live (submissions queued or running at once), and
--run-max-live (runs queued or running at once), for a site that submits for all its
users through one token.`,
		Example: `  ojctl token create site-backend --role reader
  ojctl token ls
  ojctl token revoke site-backend --dry-run`,
	}
	cmd.AddCommand(newTokenCreateCmd(a), newTokenListCmd(a), newTokenRevokeCmd(a))
	return cmd
}

func newTokenCreateCmd(a *app) *cobra.Command {
	var req wire.TokenCreateRequest
	var rate float64
	var burst, maxLive, runMaxLive int
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "create NAME --role user|reader|admin [--rate R] [--burst B] [--max-live N] [--run-max-live N] [--dry-run]",
		Short: "Create a token; its secret is printed once, as the last line",
		Long: `Create a token called NAME (audited). Its secret is printed once, as the last line (in
-o json, the "secret" field): store it, the server keeps only its hash. --dry-run checks
that the name is free and the role exists, and creates nothing.`,
		Example: `  ojctl token create site-backend --role reader
  ojctl token create site-submitter --role user --rate 50 --burst 200 --max-live 2000
  ojctl token create alice --role user -o json | jq -r .secret`,
		Args: cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			req.Name, req.DryRun = args[0], dryRun
			f := cmd.Flags()
			if f.Changed("rate") {
				req.SubmitRate = &rate
			}
			if f.Changed("burst") {
				req.SubmitBurst = &burst
			}
			if f.Changed("max-live") {
				req.MaxLive = &maxLive
			}
			if f.Changed("run-max-live") {
				req.RunMaxLive = &runMaxLive
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			out, err := c.CreateToken(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.print(out, func(p *printer) {
				if out.DryRun {
					p.printf("dry run: would create %s token %q; nothing changed\n", out.Token.Role, out.Token.Name)
					return
				}
				p.printf("created %s token %q; it is shown only now:\n%s\n", out.Token.Role, out.Token.Name, out.Secret)
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&req.Role, "role", "user", "user, reader or admin")
	f.Float64Var(&rate, "rate", 0, "the token's own submits per second (0: no bucket; default: the server's api.limits.user_rate)")
	f.IntVar(&burst, "burst", 0, "the token's own burst (default: api.limits.user_burst)")
	f.IntVar(&maxLive, "max-live", 0, "the token's own bound on submissions queued or running (0: none; default: the role's)")
	f.IntVar(&runMaxLive, "run-max-live", 0, "the token's own bound on runs queued or running (0: none; default: the server's api.limits.run_max_live_per_user)")
	f.BoolVar(&dryRun, "dry-run", false, "check the name and role, create nothing")
	return cmd
}

func newTokenListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "ls",
		Aliases: []string{"list"},
		Short:   "List the tokens (never their secrets), revoked ones included",
		Long: `List every token: its name, role, own submit bounds ("default" when it has none: the
server's api.limits apply), when and by whom it was created, and when it was revoked.`,
		Example: `  ojctl token ls
  ojctl token ls -o json | jq -r '.items[] | select(.revoked_at == null) | .name'`,
		Args: cobra.NoArgs,
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, _ []string) (*wire.TokenList, error) {
			return c.Tokens(cmd.Context())
		}, func(p *printer, list *wire.TokenList) {
			rows := make([][]string, 0, len(list.Items))
			for _, t := range list.Items {
				revoked := "-"
				if t.RevokedAt != nil {
					revoked = stamp(*t.RevokedAt)
				}
				rows = append(rows, []string{t.Name, t.Role, own(t.SubmitRate), own(t.SubmitBurst), own(t.MaxLive),
					own(t.RunMaxLive), stamp(t.CreatedAt), orDash(t.CreatedBy), revoked})
			}
			p.table([]string{"NAME", "ROLE", "RATE", "BURST", "MAX LIVE", "RUN MAX LIVE", "CREATED", "BY", "REVOKED"}, rows)
		}),
	}
}

func newTokenRevokeCmd(a *app) *cobra.Command {
	var s safety
	cmd := &cobra.Command{
		Use:   "revoke NAME [--dry-run] [--yes]",
		Short: "Revoke a token: it stops working within the server's auth cache TTL; its submissions stay",
		Long: `Revoke the token called NAME (audited). It stops working within the server's
api.limits.auth_cache_ttl (5 s); its submissions, their results and its name stay (a new
token cannot take the name). On a terminal it asks y/N; without one pass --yes.`,
		Example: `  ojctl token revoke alice --dry-run
  ojctl token revoke alice --yes`,
		Args: cobra.ExactArgs(1),
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
			name := args[0]
			return mutation{verb: "revoke token " + name, noun: "tokens",
				call: answered(func(ctx context.Context, dry bool) (*wire.TokenRevoked, error) {
					return c.RevokeToken(ctx, name, dry)
				}, func(r *wire.TokenRevoked, dry bool) effect {
					n, row := doneOrWould(dry, "Revoked", "Would revoke", r.Revoked, r.WouldRevoke)
					return effect{changes: n, requested: 1, fields: [][2]string{{"Token", name}, row}}
				})}, nil
		}),
	}
	s.register(cmd)
	return cmd
}

// own shows a token's own setting, or "default".
func own[T int | float64](v *T) string {
	if v == nil {
		return "default"
	}
	return fmt.Sprint(*v)
}

// orDash is s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
