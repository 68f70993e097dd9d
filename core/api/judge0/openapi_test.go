package judge0_test

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"oj/core/api/judge0"
	"oj/core/job"
	"oj/core/judge/lang"
	"oj/core/store"
)

// specFile describes the face's routes, relative to its prefix.
const specFile = "../../../docs/judge0-openapi.yaml"

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

// specRoutes are the document's operations as ServeMux patterns.
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

// handlerRoutes are the method-and-path patterns Face.Handler registers, read from
// face.go's source (the catch-all "/" names no method and is no operation).
func handlerRoutes(t testing.TB) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "face.go", nil, 0)
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
					out = append(out, s)
				}
			}
			return true
		})
	}
	if len(out) == 0 {
		t.Fatal("found no route pattern in Face.Handler (face.go): has the way routes are registered changed?")
	}
	slices.Sort(out)
	return out
}

func TestJudge0OpenAPIDocumentIsValid(t *testing.T) {
	doc := loadSpec(t)
	if _, err := gorillamux.NewRouter(doc); err != nil {
		t.Fatalf("route the document: %v", err)
	}
	for _, name := range []string{"Submission", "SubmissionRequest", "ValidationErrors", "Error", "ConfigInfo"} {
		if doc.Components.Schemas[name] == nil {
			t.Fatalf("components.schemas.%s is missing", name)
		}
	}
}

// Every route of Face.Handler is in the document, and every operation of the document
// is a route.
func TestJudge0OpenAPIDescribesEveryRoute(t *testing.T) {
	inSpec, inHandler := specRoutes(loadSpec(t)), handlerRoutes(t)
	for _, r := range inHandler {
		if !slices.Contains(inSpec, r) {
			t.Errorf("route %q of Face.Handler has no operation in %s: describe it", r, specFile)
		}
	}
	for _, r := range inSpec {
		if !slices.Contains(inHandler, r) {
			t.Errorf("operation %q of %s is not a route of Face.Handler: remove it, or add the route", r, specFile)
		}
	}
}

// host is a Host whose tokens are fixed secrets; the calls that would store or read a
// run are never reached by the requests below (they are refused or answered first).
type host struct{}

var tokens = map[string]*store.Token{
	"user-secret":   {ID: 1, Name: "site", Role: "user"},
	"reader-secret": {ID: 2, Name: "viewer", Role: "reader"},
	"admin-secret":  {ID: 3, Name: "root", Role: "admin"},
}

func (host) TokenFor(_ *http.Request, secret string) (*store.Token, error) {
	if tok, ok := tokens[secret]; ok {
		return tok, nil
	}
	return nil, store.ErrNotFound
}
func (host) AdmitRun(*store.Token) (bool, time.Duration) { return true, 0 }
func (host) RunBounds(*store.Token) (int64, int)         { return 100, 10 }
func (host) MaxAttempts() int                            { return 3 }
func (host) MaxSourceBytes() int                         { return 64 << 10 }
func (host) NoteSubmission(context.Context, string)      {}
func (host) TraceID(context.Context) string              { return "trace" }
func (host) WaitTerminal(context.Context, string, time.Duration) (*store.Submission, error) {
	return nil, context.DeadlineExceeded
}

// The answers the face gives without PostgreSQL are held to the document: status,
// headers and body.
func TestJudge0AnswersFollowTheDocument(t *testing.T) {
	doc := loadSpec(t)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	face := judge0.New(judge0.DefaultConfig(), judge0.Deps{Host: host{}, Languages: lang.Default(),
		Runs: job.DefaultRunsConfig(), Versions: func(context.Context) map[string]string {
			return map[string]string{"cpp17": "C++17 (g++ 12.2.0)"}
		}})
	srv := httptest.NewServer(face.Handler())
	defer srv.Close()

	for _, c := range []struct {
		name, method, path, secret, adminUser, body string
		want                                        int
	}{
		{"statuses", "GET", "/statuses", "", "", "", 200},
		{"languages", "GET", "/languages", "", "", "", 200},
		{"all languages", "GET", "/languages/all", "", "", "", 200},
		{"a compiled language", "GET", "/languages/54", "user-secret", "", "", 200},
		{"an interpreted language", "GET", "/languages/71", "", "", "", 200},
		{"an id oj does not serve", "GET", "/languages/44", "", "", "", 404},
		{"about", "GET", "/about", "", "", "", 200},
		{"config_info", "GET", "/config_info", "", "", "", 200},
		{"system_info by X-Auth-User", "GET", "/system_info", "", "admin-secret", "", 200},
		{"system_info by a user", "GET", "/system_info", "user-secret", "", "", 403},
		{"system_info without credentials", "GET", "/system_info", "", "", "", 401},
		{"unknown token", "GET", "/statuses", "nobody", "", "", 401},
		{"create without credentials", "POST", "/submissions", "", "", `{"source_code":"x","language_id":71}`, 401},
		{"create by a reader", "POST", "/submissions", "reader-secret", "", `{"source_code":"x","language_id":71}`, 403},
		{"create refused", "POST", "/submissions", "user-secret", "", `{"source_code":"","language_id":9999,"cpu_time_limit":99}`, 422},
		{"create, body not JSON", "POST", "/submissions", "user-secret", "", `{"source_code":`, 400},
		{"unknown field", "GET", "/submissions/x?fields=stdout,nope", "", "", "", 400},
		{"batch all refused", "POST", "/submissions/batch", "user-secret", "", `{"submissions":[{"language_id":71},[1]]}`, 422},
		{"batch of none", "POST", "/submissions/batch", "user-secret", "", `{"submissions":[]}`, 400},
		{"read a batch of none", "GET", "/submissions/batch?tokens=", "", "", "", 400},
		{"read a batch of 21", "GET", "/submissions/batch?tokens=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u", "", "", "", 400},
		{"delete", "DELETE", "/submissions/x", "admin-secret", "", "", 400},
		{"delete by a user", "DELETE", "/submissions/x", "user-secret", "", "", 403},
	} {
		var body io.Reader
		if c.body != "" {
			body = bytes.NewReader([]byte(c.body))
		}
		req, err := http.NewRequest(c.method, srv.URL+c.path, body)
		if err != nil {
			t.Fatal(err)
		}
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if c.secret != "" {
			req.Header.Set("X-Auth-Token", c.secret)
		}
		if c.adminUser != "" {
			req.Header.Set("X-Auth-User", c.adminUser)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		answer, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if resp.StatusCode != c.want {
			t.Fatalf("%s: %d %s, want %d", c.name, resp.StatusCode, answer, c.want)
		}
		checkAnswer(t, router, doc, c.name, req, resp, answer)
	}
}

// checkAnswer holds one answer to the document's operation for its request.
func checkAnswer(t *testing.T, router routers.Router, doc *openapi3.T, name string, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	// The operation is found against the document's server; the request went to the test's.
	at, err := http.NewRequest(req.Method, doc.Servers[0].URL+req.URL.RequestURI(), nil)
	if err != nil {
		t.Fatal(err)
	}
	route, params, err := router.FindRoute(at)
	if err != nil {
		t.Fatalf("%s: %s %s: no operation of the document matches: %v", name, req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: at, PathParams: params, Route: route}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode,
		Header: resp.Header, Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Fatalf("%s: the answer %d %s breaks %s: %v", name, resp.StatusCode, body, specFile, err)
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound {
		if len(body) != 0 {
			t.Fatalf("%s: %d with body %q, want an empty body as Judge0 sends", name, resp.StatusCode, body)
		}
	}
}
