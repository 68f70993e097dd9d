package main

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"oj/core/spelling"
)

// The keys ojd knows are those of the Config struct's mapstructure tags: a section added
// to Config is known here without a list to keep in step. A key in the file that is not
// one of them stops ojd (an operator's intent must not be dropped without a word); an
// OJ_* variable that names no key is a warning, since an environment carries variables
// for other programs too.

// keyNode is one key of the configuration: a section with keys below it, a value, or a
// map of free-form keys (worker.concurrency's lanes), whose own Validate checks them.
type keyNode struct {
	children map[string]*keyNode
	order    []string // children's keys in declaration order, for messages
	freeForm bool
}

// keyTree derives the keys of a config struct type from its mapstructure tags.
func keyTree(t reflect.Type) *keyNode {
	switch {
	case t == reflect.TypeOf(time.Duration(0)):
		return &keyNode{}
	case t.Kind() == reflect.Map:
		return &keyNode{freeForm: true}
	case t.Kind() != reflect.Struct:
		return &keyNode{}
	}
	n := &keyNode{children: map[string]*keyNode{}}
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		n.children[tag] = keyTree(t.Field(i).Type)
		n.order = append(n.order, tag)
	}
	return n
}

// unknownKeys names, one message each, the keys among keys (viper's dotted, lower-case
// keys: the file's, the defaults', the environment's and the flags') that are not
// configuration keys, reported at their first unknown part with the nearest valid key.
func unknownKeys(root *keyNode, keys []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, key := range keys {
		parts := strings.Split(key, ".")
		n, path := root, ""
		for i, p := range parts {
			if n.freeForm {
				break
			}
			child := n.children[p]
			if child != nil && (child.children != nil || child.freeForm || i == len(parts)-1) {
				n, path = child, join(path, p)
				continue
			}
			// Either no such key, or a key below one that takes a value.
			bad, msg := join(path, p), ""
			if child != nil {
				bad = join(bad, parts[i+1])
				msg = fmt.Sprintf("unknown key %q (%s takes a value, not keys)", bad, join(path, p))
			} else {
				msg = unknownKeyMessage(path, p, n)
			}
			if !seen[bad] {
				seen[bad] = true
				out = append(out, msg)
			}
			break
		}
	}
	sort.Strings(out)
	return out
}

// unknownKeyMessage says that key does not exist in section (at path), and which do.
func unknownKeyMessage(path, key string, section *keyNode) string {
	return fmt.Sprintf("unknown key %q (%s)", join(path, key), spelling.KeyHint(path, key, section.order))
}

// envName is the OJ_* variable that overrides key (viper's AutomaticEnv with the "OJ"
// prefix and dots as underscores).
func envName(key string) string {
	return "OJ_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// notConfig are OJ_* variables of the project's scripts and tests, which ojd does not
// read and does not warn about (docs/configuration.md lists the same):
// make test's OJ_TEST_*, the worker tests' children's OJ_CHILD_*, make test-vm's OJ_VM_*,
// make deb's OJ_VERSION, OJ_MAINTAINER and OJ_DEB_DIR, scripts/stack.sh's OJ_PG_BIN,
// OJ_STACK_TIMEOUT and OJ_STACK_DIR.
var (
	notConfigPrefixes = []string{"OJ_TEST_", "OJ_CHILD_", "OJ_VM_"}
	notConfigNames    = []string{"OJ_VERSION", "OJ_MAINTAINER", "OJ_DEB_DIR", "OJ_PG_BIN", "OJ_STACK_TIMEOUT", "OJ_STACK_DIR"}
)

// unknownEnv names, one message each, the OJ_* variables of environ that override no
// key of keys (every key with a default: the only ones AutomaticEnv reads) and are not
// the scripts' own.
func unknownEnv(environ, keys []string) []string {
	known := map[string]bool{}
	var names []string
	for _, k := range keys {
		n := envName(k)
		known[n] = true
		names = append(names, strings.TrimPrefix(n, "OJ_"))
	}
	sort.Strings(names)
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "OJ_") || known[name] || slices.Contains(notConfigNames, name) ||
			slices.ContainsFunc(notConfigPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		msg := fmt.Sprintf("environment variable %s names no configuration key and is ignored", name)
		if s := spelling.Nearest(strings.TrimPrefix(name, "OJ_"), names); s != "" {
			msg += fmt.Sprintf(" (did you mean OJ_%s?)", s)
		}
		out = append(out, msg)
	}
	sort.Strings(out)
	return out
}

// leafKeys lists the dotted keys below n that take a value (a free-form map counts as
// one key: its own keys are the operator's), sorted.
func leafKeys(n *keyNode, path string) []string {
	if n.children == nil || n.freeForm {
		return []string{path}
	}
	var out []string
	for _, k := range n.order {
		out = append(out, leafKeys(n.children[k], join(path, k))...)
	}
	sort.Strings(out)
	return out
}
