package main

import (
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The packaged /etc/oj/ojd.yaml documents every key with its default: the same set of
// keys as the config structs (order is not compared; packaging/build.sh checks the
// values against `ojd config` too). A key added to a struct and not to the file fails
// here, naming it.
func TestPackagedConfigListsEveryKey(t *testing.T) {
	b, err := os.ReadFile("../../packaging/ojd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("packaging/ojd.yaml: %v", err)
	}
	root := keyTree(reflect.TypeOf(defaultConfig()))
	var inFile []string
	var walk func(m map[string]any, n *keyNode, path string)
	walk = func(m map[string]any, n *keyNode, path string) {
		for k, v := range m {
			p, child := join(path, k), (*keyNode)(nil)
			if n != nil {
				child = n.children[k]
			}
			sub, isMap := v.(map[string]any)
			if isMap && (child == nil || !child.freeForm) {
				walk(sub, child, p)
				continue
			}
			inFile = append(inFile, p)
		}
	}
	walk(doc, root, "")
	sort.Strings(inFile)
	known := leafKeys(root, "")
	var missing, extra []string
	for _, k := range known {
		if !slices.Contains(inFile, k) {
			missing = append(missing, k)
		}
	}
	for _, k := range inFile {
		if !slices.Contains(known, k) {
			extra = append(extra, k)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("packaging/ojd.yaml and the config structs list different keys\n"+
			"missing from packaging/ojd.yaml (add each with its default and a comment):\n  %s\n"+
			"in packaging/ojd.yaml but no configuration key:\n  %s",
			strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
	}
}
