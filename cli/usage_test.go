package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestFlagUsages: a boolean flag is listed by its name alone, a flag with
// a value by its name and the value's name, the descriptions start in one
// column, and a default is shown only when it is not the zero value.
func TestFlagUsages(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.SortFlags = false
	var (
		b   bool
		s   string
		n   int
		d   time.Duration
		ns  string
		off time.Duration
	)
	fs.BoolVar(&b, "json", false, "print one JSON object")
	fs.StringVarP(&ns, "namespace", "n", "work", "gocraft/work `namespace`")
	fs.StringVar(&s, "audit-log", "", "append to `FILE`")
	fs.IntVar(&n, "batch", 1000, "jobs per call")
	fs.DurationVar(&d, "interval", 2*time.Second, "time between polls")
	fs.DurationVar(&off, "wait", 0, "how long to wait")
	got := flagUsages(fs)
	want := strings.Join([]string{
		"      --json                  print one JSON object",
		`  -n, --namespace namespace   gocraft/work namespace (default "work")`,
		"      --audit-log FILE        append to FILE",
		"      --batch int             jobs per call (default 1000)",
		"      --interval duration     time between polls (default 2s)",
		"      --wait duration         how long to wait",
		"",
	}, "\n")
	if got != want {
		t.Errorf("flagUsages:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "true|false") {
		t.Errorf("a boolean flag is listed with a value: %s", got)
	}
}
