package testbudget

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Use is one reach into the root model's internals from a test file.
type Use struct {
	File   string // base name of the test file
	Name   string // the field or method
	Method bool
}

// Count type-checks the package in dir (its files and its internal test
// files, package name pkg) and returns every selector in the test files
// that reads an unexported field of the named type root, or calls one of
// its unexported methods. Imports are read from the export data the go
// command builds (go list -export), so the count follows the types, not
// the names.
func Count(dir, pkg, root string) ([]Use, error) {
	exports, err := exportData(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var files, tests []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name != pkg {
			continue // an external test package cannot reach the internals
		}
		files = append(files, f)
		if strings.HasSuffix(n, "_test.go") {
			tests = append(tests, f)
		}
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		p, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(p)
	})
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp}
	tp, err := conf.Check(pkg, fset, files, info)
	if err != nil {
		return nil, fmt.Errorf("type-check %s: %w", dir, err)
	}
	obj := tp.Scope().Lookup(root)
	if obj == nil {
		return nil, fmt.Errorf("%s has no type %s", dir, root)
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return nil, fmt.Errorf("%s.%s is not a named type", pkg, root)
	}
	var uses []Use
	for _, f := range tests {
		file := filepath.Base(fset.Position(f.Pos()).Filename)
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			s := info.Selections[sel]
			if s == nil || s.Obj().Exported() || !isRoot(s.Recv(), named) || len(s.Index()) != 1 {
				return true
			}
			switch s.Kind() {
			case types.FieldVal:
				uses = append(uses, Use{File: file, Name: s.Obj().Name()})
			case types.MethodVal, types.MethodExpr:
				uses = append(uses, Use{File: file, Name: s.Obj().Name(), Method: true})
			}
			return true
		})
	}
	sort.SliceStable(uses, func(i, j int) bool { return uses[i].File < uses[j].File })
	return uses, nil
}

// isRoot reports whether t is the root type or a pointer to it.
func isRoot(t types.Type, root *types.Named) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj() == root.Obj()
}

// exportData maps the import path of every package the tests of dir
// build with to its export data file.
func exportData(dir string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-test", "-f", "{{.ImportPath}} {{.Export}}", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, export, ok := strings.Cut(sc.Text(), " ")
		if !ok || export == "" || strings.Contains(path, " [") {
			continue // test variants: only the plain packages are imported
		}
		m[path] = export
	}
	return m, sc.Err()
}
