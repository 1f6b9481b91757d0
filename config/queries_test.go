package config

import (
	"errors"
	"strings"
	"testing"
)

// TestParseQueries: [queries] keeps each saved query as written; a bad
// one is one line naming the file and line.
func TestParseQueries(t *testing.T) {
	doc := "[targets.a]\nredis = \"x:1\"\n\n[queries]\noutage = 'job:charge_card err~\"gateway\" since:1h'\nslow-mail = \"job:send_* err:'time out'\"\n"
	f, err := Parse("c.toml", []byte(doc), 0o600, "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Queries["outage"]; got != `job:charge_card err~"gateway" since:1h` {
		t.Errorf("outage = %q", got)
	}
	if got := f.Queries["slow-mail"]; got != `job:send_* err:'time out'` {
		t.Errorf("slow-mail = %q", got)
	}
	for _, tc := range []struct{ doc, want string }{
		{"[queries]\nok = 'job:x'\noutage = 'job:charge_card erorr:gateway'\n", `c.toml:3: queries.outage: bad query: unknown term "erorr:" (did you mean err:?)`},
		{"[queries]\nold = 'since:-1h'\n", `c.toml:2: queries.old: bad query: term "since:-1h": age "-1h" is negative`},
		{"[queries]\nn = 3\n", `c.toml:2: queries.n: want`},
		{"[queries]\n\"a b\" = 'job:x'\n", `c.toml:2: queries."a b": a name is letters, digits, '_' and '-'`},
		{"queries = 'job:x'\n", `c.toml:1: queries must be a table`},
	} {
		_, err := Parse("c.toml", []byte(tc.doc), 0o600, "/home/u")
		var ps Problems
		if !errors.As(err, &ps) || len(ps) != 1 || !strings.HasPrefix(ps[0].String(), tc.want) {
			t.Errorf("%q: err %v, want one line starting %q", tc.doc, err, tc.want)
		}
	}
}
