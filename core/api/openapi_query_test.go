package api_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// specOperation is one operation of the spec with its parameters, resolved.
type specOperation struct {
	method, path string
	params       []*openapi3.Parameter
}

func specOperations(doc *openapi3.T) []specOperation {
	var out []specOperation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := specOperation{method: method, path: path}
			for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
				o.params = append(o.params, p.Value)
			}
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b specOperation) int { return strings.Compare(a.method+" "+a.path, b.method+" "+b.path) })
	return out
}

// sample is a value of p's schema: the first of an enum, true, 1, a submission id no
// submission has, else a problem id no problem has. With those, no request of this test
// changes anything (dry_run is true wherever it is taken; ids name nothing).
func sample(p *openapi3.Parameter) string {
	s := p.Schema.Value
	switch {
	case len(s.Enum) > 0:
		return fmt.Sprint(s.Enum[0])
	case s.Type.Is("boolean"):
		return "true"
	case s.Type.Is("integer"):
		return "1"
	case s.Format == "uuid":
		return "01890000-0000-7000-8000-000000000000"
	}
	return "nosuch"
}

// target is the operation's path with its path parameters filled in, and its query
// parameters' names.
func (o specOperation) target() (string, []string) {
	path := o.path
	var query []string
	for _, p := range o.params {
		switch p.In {
		case "path":
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(sample(p)))
		case "query":
			query = append(query, p.Name)
		}
	}
	return path, query
}

// handlerQueries are the query parameters each route of Server.Handler declares, read
// from server.go's source: the string arguments of takes(…) in the call that registers
// the route's pattern, directly or through a variable (action := takes(…).body(…)).
func handlerQueries(t testing.TB) map[string][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]ast.Expr{}
	ast.Inspect(f, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
			if id, ok := as.Lhs[0].(*ast.Ident); ok {
				vars[id.Name] = as.Rhs[0]
			}
		}
		return true
	})
	// takes finds the takes(…) call of a route's last argument, under .body(…) and variables.
	var takes func(ast.Expr) *ast.CallExpr
	takes = func(e ast.Expr) *ast.CallExpr {
		switch x := e.(type) {
		case *ast.Ident:
			if v, ok := vars[x.Name]; ok {
				return takes(v)
			}
		case *ast.CallExpr:
			switch fn := x.Fun.(type) {
			case *ast.Ident:
				if fn.Name == "takes" {
					return x
				}
			case *ast.SelectorExpr:
				return takes(fn.X)
			}
		}
		return nil
	}
	out := map[string][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 3 {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		pattern, err := strconv.Unquote(lit.Value)
		if err != nil || !routePattern.MatchString(pattern) {
			return true
		}
		in := takes(call.Args[len(call.Args)-1])
		if in == nil {
			t.Fatalf("route %s is registered without takes(…)", pattern)
		}
		names := []string{}
		for _, a := range in.Args {
			l, ok := a.(*ast.BasicLit)
			if !ok || l.Kind != token.STRING {
				t.Fatalf("route %s: takes(…) with something other than string literals", pattern)
			}
			name, _ := strconv.Unquote(l.Value)
			names = append(names, name)
		}
		// A wildcard that takes the rest of the path ({path...}) is one parameter to the spec.
		out[strings.ReplaceAll(pattern, "...}", "}")] = names
		return true
	})
	return out
}

// Every route declares in server.go the query parameters the spec lists for its
// operation, no more and no fewer.
func TestOpenAPIListsEveryQueryParameterOfEveryRoute(t *testing.T) {
	t.Parallel()
	declared := handlerQueries(t)
	for _, o := range specOperations(loadSpec(t)) {
		op := o.method + " " + o.path
		got, ok := declared[op]
		if !ok {
			t.Errorf("%s: no takes(…) found for it in server.go", op)
			continue
		}
		_, want := o.target()
		// A prefix the route takes (meta.*) is one example parameter in the spec (meta.key).
		for i, g := range got {
			if prefix, ok := strings.CutSuffix(g, "*"); ok {
				got[i] = prefix + "key"
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: server.go takes %v, %s lists %v", op, got, specFile, want)
		}
	}
}

// Every operation of docs/openapi.yaml refuses a query parameter it does not list (400
// bad_request, naming it) and one it lists given twice, and takes every one it lists:
// the spec's parameters are exactly what the routes declare (Server.Handler, takes).
func TestOpenAPIQueryParametersAreExactlyTheRoutes(t *testing.T) {
	t.Parallel()
	ck := newChecker(t)
	e := newEnv(t, envOpts{})
	admin := tokenOf(e.admin)
	ops := specOperations(ck.doc)
	if len(ops) != len(handlerRoutes(t)) {
		t.Fatalf("%d operations in the spec, %d routes (TestOpenAPIDescribesEveryRoute says which)", len(ops), len(handlerRoutes(t)))
	}
	for _, o := range ops {
		name := o.method + " " + o.path
		path, names := o.target()
		ck.do(e.http.URL, call{name: name + " with an unknown parameter", method: o.method, path: path + "?zz_unknown=1",
			token: admin, want: http.StatusBadRequest, offSpec: true, check: wantInBody(`unknown query parameter \"zz_unknown\"`)})
		if len(names) == 0 {
			continue
		}
		all := url.Values{}
		for _, p := range o.params {
			if p.In == "query" {
				all.Set(p.Name, sample(p))
			}
		}
		// Every listed parameter at once: whatever the answer (a 404 for an id that names
		// nothing, a 400 for a body left out), it is not the refusal of a parameter.
		c := call{name: name + " with every parameter it lists", method: o.method, path: path + "?" + all.Encode(), token: admin}
		in, _ := ck.route(t, c)
		resp, err := http.DefaultClient.Do(c.request(t, e.http.URL))
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp.Body)
		resp.Body.Close()
		ck.checkAnswer(c.name, in, resp, body)
		if strings.Contains(string(body), "query parameter") {
			t.Errorf("%s: the spec lists %v, the route refuses one: %d %s", name, names, resp.StatusCode, body)
		}
		for _, n := range names {
			twice := url.Values{n: {all.Get(n), all.Get(n)}}
			ck.do(e.http.URL, call{name: name + " with " + n + " twice", method: o.method, path: path + "?" + twice.Encode(),
				token: admin, want: http.StatusBadRequest, offSpec: true, check: wantInBody(fmt.Sprintf(`query parameter \"%s\" is given 2 times`, n))})
		}
	}
}
