package api_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"oj/core/api"
)

// What the server registers is what /metrics serves, whichever registries Deps gives:
// the request counted for /healthz shows on /metrics.
func TestMetricsServesWhatIsRegistered(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	for name, d := range map[string]api.Deps{
		"neither":         {},
		"registerer only": {Registerer: prometheus.NewRegistry()},
		"gatherer only":   {Gatherer: prometheus.NewRegistry()},
		"both":            {Registerer: reg, Gatherer: reg},
	} {
		t.Run(name, func(t *testing.T) {
			h := api.New(api.DefaultConfig(), d).Handler()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/healthz", nil))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != 200 || !strings.Contains(string(body), "oj_api_requests_total") {
				t.Fatalf("/metrics = %d, without the server's metrics:\n%.500s", rec.Code, body)
			}
		})
	}
}
