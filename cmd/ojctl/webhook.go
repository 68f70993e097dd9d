package main

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newWebhookCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "webhook",
		Aliases: []string{"webhooks"},
		Short:   "Register, list and repair webhook endpoints and their deliveries (admin token)",
		Long: `Webhooks push the results feed's events to a site: the dispatcher POSTs each event, as the
feed has it, to every enabled endpoint that wants it, signed as Standard Webhooks sign
them (headers webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256
of "id.timestamp.body" under the endpoint's whsec_ secret).

Only a 2xx delivers. Anything else (a redirect too: none is followed) is tried again on
the server's webhooks.schedule, about three days; then the delivery is failed, kept and
redeliverable. 410 disables the endpoint; so does a whole window of failures. An
endpoint receives the events committed after it was registered (or last enabled).

Every change is audited and takes --dry-run; on a terminal it asks y/N, without one
pass --yes.`,
		Example: `  ojctl webhook add https://contest.example.com/oj-hook --event submission.finished --meta contest=icpc-2026
  ojctl webhook ls
  ojctl webhook test ID
  ojctl webhook deliveries ID --status failed
  ojctl webhook redeliver ID DELIVERY --yes`,
	}
	cmd.AddCommand(newWebhookAddCmd(a), newWebhookListCmd(a), newWebhookRemoveCmd(a),
		newWebhookActionCmd(a, "enable", "Enable an endpoint: it receives the events committed from now on, and its pending deliveries are tried at once"),
		newWebhookActionCmd(a, "disable", "Disable an endpoint: nothing more is sent to it; its pending deliveries wait until it is enabled"),
		newWebhookRotateCmd(a), newWebhookTestCmd(a), newWebhookDeliveriesCmd(a), newWebhookRedeliverCmd(a))
	return cmd
}

func newWebhookAddCmd(a *app) *cobra.Command {
	var events, meta []string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "add URL [--event TYPE]… [--meta k=v]… [--dry-run]",
		Short: "Register an endpoint; its signing secret is printed once, as the last line",
		Long: `Register URL (http or https) as a webhook endpoint (audited). It receives the events
committed from now on: of the --event types (repeatable; all when none is given:
` + strings.Join(wire.EventTypes, ", ") + `), about submissions carrying every --meta
pair (all when none; with a --meta filter it receives no problem.version).

The signing secret (whsec_…) is printed once, as the last line (in -o json, the "secret"
field): give it to the receiver, which verifies each webhook-signature with it. The
server refuses loopback, private and link-local addresses when it dials them, unless its
webhooks.allow_private is set; a URL whose host is only such addresses is refused here
already.`,
		Example: `  ojctl webhook add https://contest.example.com/oj-hook
  ojctl webhook add https://lms.example.edu/hooks/oj --event submission.finished --event submission.dead --meta course=cs101
  ojctl webhook add https://example.com/h -o json | jq -r .secret`,
		Args: cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			metadata, err := parseMeta(meta)
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			out, err := c.CreateWebhook(cmd.Context(), wire.WebhookCreateRequest{URL: args[0], Events: events,
				Metadata: metadata, DryRun: dryRun})
			if err != nil {
				return err
			}
			return a.print(out, func(p *printer) {
				if out.DryRun {
					p.printf("dry run: would register %s for %s; nothing changed\n", out.Webhook.URL, webhookWants(out.Webhook))
					return
				}
				p.fields([][2]string{{"ID", out.Webhook.ID}, {"URL", out.Webhook.URL}, {"Receives", webhookWants(out.Webhook)}})
				p.printf("registered; its signing secret is shown only now:\n%s\n", out.Secret)
			})
		}),
	}
	f := cmd.Flags()
	f.StringArrayVar(&events, "event", nil, "an event type to receive (repeatable; default: all)")
	f.StringArrayVar(&meta, "meta", nil, "only submissions tagged key=value (repeatable: every pair must match)")
	f.BoolVar(&dryRun, "dry-run", false, "check the request, register nothing")
	return cmd
}

// webhookWants says what an endpoint receives.
func webhookWants(w wire.Webhook) string {
	types := "every event"
	if len(w.Events) > 0 {
		types = strings.Join(w.Events, ", ")
	}
	if len(w.Metadata) == 0 {
		return types
	}
	pairs := make([]string, 0, len(w.Metadata))
	for k, v := range w.Metadata {
		pairs = append(pairs, k+"="+v)
	}
	slices.Sort(pairs)
	return types + " of submissions tagged " + strings.Join(pairs, ", ")
}

func newWebhookRemoveCmd(a *app) *cobra.Command {
	var s safety
	cmd := &cobra.Command{
		Use:     "rm ID [--dry-run] [--yes]",
		Aliases: []string{"remove"},
		Short:   "Remove an endpoint and its deliveries, undelivered ones too",
		Long: `Remove the endpoint ID (audited), with every delivery it has: pending and failed ones are
not sent any more. To stop sending for a while and keep them, disable it instead.`,
		Example: `  ojctl webhook rm ID --dry-run
  ojctl webhook rm ID --yes`,
		Args: cobra.ExactArgs(1),
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
			id := args[0]
			return mutation{verb: "remove webhook " + id, noun: "endpoints",
				call: answered(func(ctx context.Context, dry bool) (*wire.WebhookChanged, error) {
					return c.DeleteWebhook(ctx, id, dry)
				}, func(r *wire.WebhookChanged, dry bool) effect {
					n, row := doneOrWould(dry, "Removed", "Would remove", r.Changed, r.WouldChange)
					return effect{changes: n, requested: 1, fields: [][2]string{{"Webhook", id}, row,
						{"Undelivered with it", itoa(r.Undelivered)}}}
				})}, nil
		}),
	}
	s.register(cmd)
	return cmd
}

func newWebhookActionCmd(a *app, action, short string) *cobra.Command {
	var s safety
	cmd := &cobra.Command{
		Use:     action + " ID [--dry-run] [--yes]",
		Short:   short,
		Long:    short + " (audited). Doing it to an endpoint already in that state changes nothing (0).",
		Example: "  ojctl webhook " + action + " ID --yes",
		Args:    cobra.ExactArgs(1),
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
			id := args[0]
			label := strings.ToUpper(action[:1]) + action[1:] + "d"
			return mutation{verb: action + " webhook " + id, noun: "endpoints",
				call: answered(webhookCall(c, id, action), func(r *wire.WebhookChanged, dry bool) effect {
					n, row := doneOrWould(dry, label, "Would "+action, r.Changed, r.WouldChange)
					return effect{changes: n, requested: -1, fields: [][2]string{{"Webhook", id}, row}}
				})}, nil
		}),
	}
	s.register(cmd)
	return cmd
}

// webhookCall is the call of an action on the endpoint id (enable, disable, rotate).
func webhookCall(c *client.Client, id, action string) func(context.Context, bool) (*wire.WebhookChanged, error) {
	return func(ctx context.Context, dry bool) (*wire.WebhookChanged, error) {
		return c.WebhookAction(ctx, id, action, dry)
	}
}

func newWebhookRotateCmd(a *app) *cobra.Command {
	var s safety
	cmd := &cobra.Command{
		Use:   "rotate ID [--dry-run] [--yes]",
		Short: "Give an endpoint a new signing secret, printed once; the old one signs beside it for a while",
		Long: `Give the endpoint ID a new secret (audited), printed once as the last line. For the
server's webhooks.rotation_grace (24 h by default) each webhook carries two signatures,
one per secret, so the receiver can switch to the new secret without failing a delivery.`,
		Example: `  ojctl webhook rotate ID --yes
  ojctl webhook rotate ID --yes -o json | jq -r .secret`,
		Args: cobra.ExactArgs(1),
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
			id := args[0]
			return mutation{verb: "rotate the secret of webhook " + id, noun: "endpoints",
				call: answered(webhookCall(c, id, "rotate"), func(r *wire.WebhookChanged, dry bool) effect {
					n, row := doneOrWould(dry, "Rotated", "Would rotate", r.Changed, r.WouldChange)
					fields := [][2]string{{"Webhook", id}, row}
					if r.RotatedUntil != nil {
						fields = append(fields, [2]string{"Old secret signs until", stamp(*r.RotatedUntil)})
					}
					if r.Secret != "" {
						fields = append(fields, [2]string{"New secret (shown only now)", r.Secret})
					}
					return effect{changes: n, requested: 1, fields: fields}
				})}, nil
		}),
	}
	s.register(cmd)
	return cmd
}

func newWebhookTestCmd(a *app) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "test ID [--dry-run]",
		Short: "Send a webhook.test event to an endpoint, through the real delivery path",
		Long: `Queue a delivery of type webhook.test to the endpoint ID (audited): the dispatcher signs,
sends and retries it like any other, so its outcome (ojctl webhook deliveries ID) shows
whether the receiver is reachable and verifies the signature. Refused (409) for a
disabled endpoint.`,
		Example: `  ojctl webhook test ID && sleep 2 && ojctl webhook deliveries ID --limit 1`,
		Args:    cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			r, err := c.TestWebhook(cmd.Context(), args[0], dryRun)
			if err != nil {
				return err
			}
			return a.print(r, func(p *printer) {
				if r.DryRun {
					p.printf("dry run: would queue a test delivery to %s; nothing changed\n", args[0])
					return
				}
				p.printf("queued test delivery %s; see: ojctl webhook deliveries %s --limit 1\n", r.DeliveryID, args[0])
			})
		}),
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "check that the endpoint exists and is enabled, queue nothing")
	return cmd
}

func newWebhookDeliveriesCmd(a *app) *cobra.Command {
	var status, cursor string
	var limit int
	cmd := &cobra.Command{
		Use:   "deliveries ID [--status pending|delivered|failed] [--limit N] [--cursor C]",
		Short: "An endpoint's deliveries, newest first: status, attempts, last answer or error, next try",
		Long: `List the deliveries of the endpoint ID, newest first. Each is one event to this
endpoint; its ID is the webhook-id the receiver sees on every try. STATUS: pending
(waiting for a try; "in flight" while one runs), delivered (a 2xx), failed (given up
after the retry window; redeliver it). LAST is the last try's HTTP status, or "-" when
it got no answer (ERROR says why: a timeout, a refused address, …).`,
		Example: `  ojctl webhook deliveries ID
  ojctl webhook deliveries ID --status failed -o json | jq -r '.items[].id'`,
		Args: cobra.ExactArgs(1),
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, args []string) (*wire.WebhookDeliveryList, error) {
			return c.WebhookDeliveries(cmd.Context(), args[0], status, limit, cursor)
		}, func(p *printer, page *wire.WebhookDeliveryList) {
			now := a.clock()
			rows := make([][]string, 0, len(page.Items))
			for _, d := range page.Items {
				st := d.Status
				if d.InFlight {
					st = "in flight"
				}
				next := "-"
				if d.NextTry != nil && !d.InFlight {
					next = "in " + max(d.NextTry.Sub(now), 0).Round(time.Second).String()
				}
				rows = append(rows, []string{d.ID, orDash(d.EventID), d.EventType, st, itoa(d.Attempts),
					ptrOr(d.LastStatus, "-"), stampPtr(d.LastTry), next, clipLine(d.LastError, 60)})
			}
			p.table([]string{"ID", "EVENT", "TYPE", "STATUS", "TRIES", "LAST", "LAST TRY", "NEXT", "ERROR"}, rows)
			if page.NextCursor != "" {
				p.printf("more: --cursor %s\n", page.NextCursor)
			}
		}),
	}
	f := cmd.Flags()
	f.StringVar(&status, "status", "", "only pending, delivered or failed deliveries")
	f.IntVar(&limit, "limit", 0, "at most this many (default 50, at most 500)")
	f.StringVar(&cursor, "cursor", "", "continue after a page (its \"more: --cursor\" line, or next_cursor)")
	return cmd
}

func newWebhookRedeliverCmd(a *app) *cobra.Command {
	var s safety
	cmd := &cobra.Command{
		Use:   "redeliver ID DELIVERY [--dry-run] [--yes]",
		Short: "Try a delivery again now (a failed one too), with a new retry window and the same webhook-id",
		Long: `Make the delivery DELIVERY of endpoint ID pending and due now (audited): it gets a new
retry window and keeps its webhook-id, so a receiver that already handled it can tell.
Refused (409) while a try of it is in flight. A disabled endpoint's delivery waits
until the endpoint is enabled.`,
		Example: `  ojctl webhook deliveries ID --status failed
  ojctl webhook redeliver ID DELIVERY --yes`,
		Args: cobra.ExactArgs(2),
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
			id, delivery := args[0], args[1]
			return mutation{verb: "redeliver " + delivery, noun: "deliveries",
				call: answered(func(ctx context.Context, dry bool) (*wire.WebhookRedelivered, error) {
					return c.Redeliver(ctx, id, delivery, dry)
				}, func(r *wire.WebhookRedelivered, dry bool) effect {
					n, row := doneOrWould(dry, "Redelivered", "Would redeliver", r.Redelivered, r.WouldRedeliver)
					return effect{changes: n, requested: 1, fields: [][2]string{{"Delivery", delivery}, row,
						{"Tries before", itoa(r.PreviousAttempts)}}}
				})}, nil
		}),
	}
	s.register(cmd)
	return cmd
}
