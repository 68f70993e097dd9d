package api_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"oj/core/api/apitest"
	"oj/core/api/client"
	"oj/core/dispatch"
	"oj/core/wire"
)

// A URL the private-address guard would refuse on every try is refused at registration,
// with a 400 that names webhooks.allow_private: a loopback or private address, or a name
// that resolves only to such addresses (localhost, from the hosts file). A public address
// passes (a dry run: nothing is sent), and with allow_private on, loopback does too.
func TestRegisteringAWebhookTheGuardWouldRefuse(t *testing.T) {
	t.Parallel()
	strict := apitest.New(t, apitest.Options{NoWorker: true, Dispatcher: func(c *dispatch.Config) {
		c.Webhooks.AllowPrivate = false
	}})
	ctx := context.Background()
	for _, url := range []string{"http://127.0.0.1:9/hook", "http://10.1.2.3/hook", "http://[::ffff:169.254.169.254]/x",
		"http://localhost:9/hook"} {
		_, err := strict.Admin.CreateWebhook(ctx, wire.WebhookCreateRequest{URL: url, DryRun: true})
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || !strings.Contains(ce.Message, "webhooks.allow_private") {
			t.Fatalf("registering %s without allow_private: %v, want a 400 naming webhooks.allow_private", url, err)
		}
	}
	if _, err := strict.Admin.CreateWebhook(ctx, wire.WebhookCreateRequest{URL: "http://192.0.2.10/hook", DryRun: true}); err != nil {
		t.Fatalf("a public address: %v", err)
	}
	open := apitest.New(t, apitest.Options{NoWorker: true})
	if _, err := open.Admin.CreateWebhook(ctx, wire.WebhookCreateRequest{URL: "http://127.0.0.1:9/hook", DryRun: true}); err != nil {
		t.Fatalf("loopback with allow_private: %v", err)
	}
}
