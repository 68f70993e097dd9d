package api

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// What the server registers is what /metrics serves, whichever registries Deps gives.
func TestMetricsServesWhatIsRegistered(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	for name, d := range map[string]Deps{
		"neither":         {},
		"registerer only": {Registerer: prometheus.NewRegistry()},
		"gatherer only":   {Gatherer: prometheus.NewRegistry()},
		"both":            {Registerer: reg, Gatherer: reg},
	} {
		t.Run(name, func(t *testing.T) {
			s := New(DefaultConfig(), d)
			s.metrics.submits.WithLabelValues("accepted").Inc()
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != 200 || !strings.Contains(string(body), "oj_api_submits_total") {
				t.Fatalf("/metrics = %d, without the server's metrics:\n%.500s", rec.Code, body)
			}
		})
	}
}
