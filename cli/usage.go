package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// flagUsages lists a flag set's flags for --help, one per line, the
// descriptions aligned: `-n, --namespace namespace   text (default "work")`.
// pflag's own listing writes every boolean flag as `--json[=true|false]`,
// which reads as if the flag needed a value; here a boolean flag is just
// its name (`--json`, and `--json=false` still parses).
func flagUsages(fs *pflag.FlagSet) string {
	type row struct{ names, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		names := "      --" + f.Name
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			names = "  -" + f.Shorthand + ", --" + f.Name
		}
		varname, usage := pflag.UnquoteUsage(f)
		if varname != "" && f.Value.Type() != "bool" {
			names += " " + varname
		}
		if d, ok := flagDefault(f); ok {
			usage += " (default " + d + ")"
		}
		width = max(width, len(names))
		rows = append(rows, row{names, usage})
	})
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s   %s\n", width, r.names, r.usage)
	}
	return b.String()
}

// flagDefault is the default to show after a flag's text: none when it is
// the zero value of its type.
func flagDefault(f *pflag.Flag) (string, bool) {
	switch f.DefValue {
	case "", "false", "0", "0s", "[]", "<nil>":
		return "", false
	}
	if f.Value.Type() == "string" {
		return fmt.Sprintf("%q", f.DefValue), true
	}
	return f.DefValue, true
}
