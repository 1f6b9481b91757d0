package testbudget

import (
	"fmt"
	"sort"
	"testing"
)

// maxPrivateReads is how many reads of the root model's unexported fields
// tui's own tests may hold. Tests of behaviour go through the screen's
// keys and text (internal/screentest); tests of pure helpers need none.
const maxPrivateReads = 9

func TestScreenTestsReadFewPrivateFields(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tui's export data with the go command: left out of go test -short, run by make test")
	}
	uses, err := Count("../../tui", "tui", "Model")
	if err != nil {
		t.Fatal(err)
	}
	fields, methods := tally(uses)
	reads, calls := total(fields), total(methods)
	t.Logf("tui's tests: %d reads of Model's unexported fields, %d calls of its unexported methods", reads, calls)
	if reads > maxPrivateReads {
		t.Errorf("tui's tests read Model's unexported fields %d times, more than the %d allowed; by file:\n%s",
			reads, maxPrivateReads, byFile(fields))
	}
}

// The counter finds what it counts: a selector of each kind in a package
// made for the test, and nothing in an external test package.
func TestCountSeesFieldsAndMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("builds export data with the go command: left out of go test -short, run by make test")
	}
	uses, err := Count("testdata/sample", "sample", "Model")
	if err != nil {
		t.Fatal(err)
	}
	fields, methods := tally(uses)
	if total(fields) != 3 || total(methods) != 2 {
		t.Fatalf("counted %v fields and %v methods, want 3 and 2: %+v", fields, methods, uses)
	}
}

func tally(uses []Use) (fields, methods map[string]int) {
	fields, methods = map[string]int{}, map[string]int{}
	for _, u := range uses {
		if u.Method {
			methods[u.File]++
		} else {
			fields[u.File]++
		}
	}
	return fields, methods
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func byFile(m map[string]int) string {
	files := make([]string, 0, len(m))
	for f := range m {
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool { return m[files[i]] > m[files[j]] })
	s := ""
	for _, f := range files {
		s += fmt.Sprintf("  %4d %s\n", m[f], f)
	}
	return s
}
