package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// specFile is the API description the server's answers are held to.
const specFile = "../../docs/openapi.yaml"

// pendingRoutes are routes docs/openapi.yaml describes (DESIGN.md's HTTP API tables) that
// Handler may not register yet. For these alone a path of the spec without a route is
// accepted, and their requests in the tables are left out while the route is missing.
// Remove an entry once its route is registered: the test fails while an entry names a
// registered route, so that its requests are checked.
var pendingRoutes = map[string]bool{}

func init() {
	// Bodies the validator has no decoder for: the event stream is text (each event's data
	// is checked against StateEvent on its own), a package is bytes.
	openapi3filter.RegisterBodyDecoder("text/event-stream", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("application/zip", openapi3filter.FileBodyDecoder)
}

// loadSpec loads docs/openapi.yaml and checks that it is a valid OpenAPI document.
func loadSpec(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(specFile)
	if err != nil {
		t.Fatalf("load %s: %v", specFile, err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", specFile, err)
	}
	return doc
}

// closeObjects makes every object schema that lists its properties and says nothing of
// others refuse unknown properties. The document leaves answers open (clients must
// ignore new fields) but the server's answers must carry nothing it does not describe.
func closeObjects(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(*openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			no := false
			s.AdditionalProperties.Has = &no
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, sub := range group {
				walk(sub)
			}
		}
	}
	for _, s := range doc.Components.Schemas {
		walk(s)
	}
}

// specRoutes are the spec's operations as ServeMux patterns: "METHOD /path/{param}".
func specRoutes(doc *openapi3.T) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

var routePattern = regexp.MustCompile(`^(GET|HEAD|POST|PUT|PATCH|DELETE) /`)

// handlerRoutes are the patterns Server.Handler registers, read from server.go's source:
// each string literal in Handler's body that is a method-and-path pattern.
func handlerRoutes(t testing.TB) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "Handler" || fn.Recv == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && routePattern.MatchString(s) {
					// A wildcard that takes the rest of the path ({path...}) is one
					// path parameter of the spec, which may hold slashes.
					out = append(out, strings.ReplaceAll(s, "...}", "}"))
				}
			}
			return true
		})
	}
	if len(out) == 0 {
		t.Fatal("found no route pattern in Server.Handler (server.go): has the way routes are registered changed?")
	}
	slices.Sort(out)
	return out
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	doc := loadSpec(t)
	if _, err := gorillamux.NewRouter(doc); err != nil {
		t.Fatalf("route the spec: %v", err)
	}
	for _, name := range []string{"StateEvent", "Submission", "Error"} {
		if doc.Components.Schemas[name] == nil {
			t.Fatalf("components.schemas.%s is missing", name)
		}
	}
}

// Every route of Handler is in the spec, and every operation of the spec is a route of
// Handler or a pending one.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	inSpec, inHandler := specRoutes(loadSpec(t)), handlerRoutes(t)
	for _, r := range inHandler {
		if !slices.Contains(inSpec, r) {
			t.Errorf("route %q of Server.Handler has no operation in %s: describe it", r, specFile)
		}
		if pendingRoutes[r] {
			t.Errorf("route %q is registered now: remove it from pendingRoutes so its requests are checked", r)
		}
	}
	for _, r := range inSpec {
		if !slices.Contains(inHandler, r) && !pendingRoutes[r] {
			t.Errorf("operation %q of %s is not a route of Server.Handler: remove it, or add the route", r, specFile)
		}
	}
}

// checker sends requests and holds each exchange to the spec: the request (unless it is
// meant to break the spec), the status, the declared headers and the body's schema.
type checker struct {
	t          *testing.T
	doc        *openapi3.T
	router     routers.Router
	registered []string
	// answered counts, per operation, the statuses seen.
	answered map[string]map[int]int
	left     map[string]bool // pending operations whose requests were left out
}

func newChecker(t *testing.T) *checker {
	doc := loadSpec(t)
	closeObjects(doc)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &checker{t: t, doc: doc, router: router, registered: handlerRoutes(t),
		answered: map[string]map[int]int{}, left: map[string]bool{}}
}

// call is one request and the answer it must get.
type call struct {
	name   string
	method string
	path   string // with its query
	token  string
	body   []byte
	ctype  string // Content-Type of the body: application/json unless set
	header map[string]string
	want   int
	// offSpec: the request breaks the spec on purpose (no token, a bad value); the server
	// must refuse it, and the answer is checked all the same.
	offSpec bool
	// check looks further at the answer.
	check func(t *testing.T, h http.Header, body []byte)
}

func bearerPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if !strings.HasPrefix(in.RequestValidationInput.Request.Header.Get("Authorization"), "Bearer ") {
		return in.NewError(io.ErrUnexpectedEOF)
	}
	return nil
}

// request builds c's request against base.
func (c call) request(t *testing.T, base string) *http.Request {
	req, err := http.NewRequest(c.method, base+c.path, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.body != nil {
		ct := c.ctype
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	return req
}

// route finds c's operation; found is false for a pending route this build lacks, whose
// request is then left out.
func (ck *checker) route(t *testing.T, c call) (*openapi3filter.RequestValidationInput, bool) {
	// Routes are found against the spec's own server; the request goes to the test's.
	req := c.request(t, ck.doc.Servers[0].URL)
	route, params, err := ck.router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s %s: no operation of the spec matches: %v", c.method, c.path, err)
	}
	op := route.Method + " " + route.Path
	if pendingRoutes[op] && !slices.Contains(ck.registered, op) {
		ck.left[op] = true
		return nil, false
	}
	return &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: bearerPresent, MultiError: true}}, true
}

// do runs c against the server at base and checks the exchange.
func (ck *checker) do(base string, c call) (http.Header, []byte) {
	t := ck.t
	t.Helper()
	in, ok := ck.route(t, c)
	if !ok {
		return nil, nil
	}
	if !c.offSpec {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Fatalf("%s: the request breaks the spec (mark it offSpec if it is meant to): %v", c.name, err)
		}
	}
	resp, err := http.DefaultClient.Do(c.request(t, base))
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: read answer: %v", c.name, err)
	}
	ck.checkAnswer(c.name, in, resp, body)
	if resp.StatusCode != c.want {
		t.Fatalf("%s: %d %s, want %d", c.name, resp.StatusCode, body, c.want)
	}
	if c.check != nil {
		c.check(t, resp.Header, body)
	}
	return resp.Header, body
}

// checkAnswer holds an answer to the spec and counts it for its operation.
func (ck *checker) checkAnswer(name string, in *openapi3filter.RequestValidationInput, resp *http.Response, body []byte) {
	t := ck.t
	t.Helper()
	if resp.StatusCode >= 400 && strings.Contains(string(body), `"message":"no route `) {
		t.Fatalf("%s: no route served it: %s", name, body)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode,
		Header: resp.Header, Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Fatalf("%s: the answer %d %s breaks the spec: %v", name, resp.StatusCode, body, err)
	}
	feed := in.Route.Path == "/api/v1/events"
	switch ct := resp.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "text/event-stream") && feed:
		for _, ev := range parseEvents(t, body) {
			ck.checkFeedEvent(name, ev.data)
		}
	case strings.HasPrefix(ct, "text/event-stream"):
		ck.checkEvents(name, body)
	case strings.HasPrefix(ct, "application/x-ndjson"):
		for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
			if line != "" && !strings.Contains(line, `"type":"heartbeat"`) {
				ck.checkFeedEvent(name, []byte(line))
			}
		}
	}
	op := in.Route.Method + " " + in.Route.Path
	if ck.answered[op] == nil {
		ck.answered[op] = map[int]int{}
	}
	ck.answered[op][resp.StatusCode]++
}

// sseEvent is one event of a stream.
type sseEvent struct {
	name, id string
	data     []byte
}

func parseEvents(t *testing.T, body []byte) []sseEvent {
	var out []sseEvent
	for _, block := range strings.Split(string(body), "\n\n") {
		var ev sseEvent
		for _, line := range strings.Split(block, "\n") {
			field, value, _ := strings.Cut(line, ": ")
			switch field {
			case "event":
				ev.name = value
			case "id":
				ev.id = value
			case "data":
				ev.data = append(ev.data, value...)
			case "", ":":
			default:
				if !strings.HasPrefix(line, ":") {
					t.Fatalf("event stream line %q is no SSE field", line)
				}
			}
		}
		if ev.name != "" || ev.data != nil {
			out = append(out, ev)
		}
	}
	return out
}

// checkEvents holds each event's data to StateEvent.
func (ck *checker) checkEvents(name string, body []byte) {
	t := ck.t
	t.Helper()
	schema := ck.doc.Components.Schemas["StateEvent"].Value
	events := parseEvents(t, body)
	if len(events) == 0 {
		t.Fatalf("%s: no event in %q", name, body)
	}
	for _, ev := range events {
		if ev.name != "state" && ev.name != "case" {
			t.Fatalf("%s: event %q, want state or case", name, ev.name)
		}
		var v any
		if err := json.Unmarshal(ev.data, &v); err != nil {
			t.Fatalf("%s: event data %q: %v", name, ev.data, err)
		}
		if err := schema.VisitJSON(v, openapi3.MultiErrors(), openapi3.VisitAsResponse()); err != nil {
			t.Fatalf("%s: %s event %s breaks StateEvent: %v", name, ev.name, ev.data, err)
		}
	}
}

// checkFeedEvent holds one event of the results feed to Event.
func (ck *checker) checkFeedEvent(name string, data []byte) {
	t := ck.t
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: feed event %q: %v", name, data, err)
	}
	if err := ck.doc.Components.Schemas["Event"].Value.VisitJSON(v, openapi3.MultiErrors(), openapi3.VisitAsResponse()); err != nil {
		t.Fatalf("%s: feed event %s breaks Event: %v", name, data, err)
	}
}

// checkCoverage fails for an operation no request reached with a 2xx answer.
func (ck *checker) checkCoverage() {
	t := ck.t
	t.Helper()
	for _, op := range specRoutes(ck.doc) {
		if ck.left[op] {
			t.Logf("%s: pending route not registered in this build; its requests were left out", op)
			continue
		}
		ok := false
		for status := range ck.answered[op] {
			ok = ok || status < 300
		}
		if !ok {
			t.Errorf("%s: no request got a 2xx answer (answers: %v); add one to the table", op, ck.answered[op])
		}
	}
}

// jsonField reads a top-level string field of a JSON answer.
func jsonField(t *testing.T, body []byte, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	s, _ := m[name].(string)
	return s
}

func query(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return "?" + v.Encode()
}
