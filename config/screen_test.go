package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestScreenKeysAndColumns(t *testing.T) {
	doc := `[targets.local]

[keys]
reap = "X"
reap_all = "ctrl+x"
up = ["up", "K"]
mark = "space"

[columns.pools]
hidden = ["started", "CONC"]

[columns.jobtypes]
visible = ["job", "queued", "paused"]
`
	f, err := Parse("c.toml", []byte(doc), 0o600, "")
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := map[string][]string{"reap": {"X"}, "reap_all": {"ctrl+x"}, "up": {"up", "K"}, "mark": {" "}}
	if !reflect.DeepEqual(f.Bindings, wantKeys) {
		t.Errorf("bindings %v, want %v", f.Bindings, wantKeys)
	}
	wantCols := map[string][]string{
		"pools":    {"status", "pool", "host:pid", "beat", "inprog", "locks", "jobs"},
		"jobtypes": {"job", "queued", "paused"},
	}
	if !reflect.DeepEqual(f.Columns, wantCols) {
		t.Errorf("columns %v, want %v", f.Columns, wantCols)
	}
	if f.Names()[0] != "local" {
		t.Errorf("targets %v", f.Names())
	}
}

// TestDefaultKeysDoNotClash: the defaults, written out in a file, are
// accepted (a key shared by actions never active together, R or esc, is
// no clash).
func TestDefaultKeysDoNotClash(t *testing.T) {
	var b strings.Builder
	b.WriteString("[keys]\n")
	for _, a := range Actions() {
		b.WriteString(a.Name + " = [")
		for i, k := range a.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(showKey(k))
		}
		b.WriteString("]\n")
	}
	f, err := Parse("c.toml", []byte(b.String()), 0o600, "")
	if err != nil {
		t.Fatalf("the defaults are refused:\n%v\n%s", err, b.String())
	}
	if len(f.Bindings) != len(Actions()) {
		t.Errorf("%d bindings, want %d", len(f.Bindings), len(Actions()))
	}
}

func TestScreenProblems(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"a key taken by a default", "[keys]\nreap = \"X\"\n",
			[]string{`c.toml:2: keys.reap: "X" is also the key of reap_all (its default key); give one of them another key`}},
		{"two bindings of the file", "[keys]\nreap = \"z\"\n\nscan_orphans = \"z\"\n",
			[]string{`c.toml:4: keys.scan_orphans: "z" is also the key of reap (line 2); give one of them another key`}},
		{"a Jobs view key on a navigation key", "[keys]\nnext_set = \"j\"\n",
			[]string{`c.toml:2: keys.next_set: "j" is also the key of down (its default key); give one of them another key`}},
		{"a dialog key on quit", "[keys]\nconfirm = \"q\"\n",
			[]string{`c.toml:2: keys.confirm: "q" is also the key of quit (its default key); give one of them another key`}},
		{"unknown action", "[keys]\nreep = \"z\"\n",
			[]string{`c.toml:2: keys.reep: unknown action (the actions are up, down, `}},
		{"not a key", "[keys]\nreap = \"xx\"\n",
			[]string{`c.toml:2: keys.reap: "xx" is not a key: write one character ("X"), or one of up, down,`}},
		{"a number", "[keys]\nreap = 1\n",
			[]string{`c.toml:2: keys.reap: want a key in quotes ("X") or an array of keys, not an integer`}},
		{"no key", "[keys]\nreap = []\n", []string{`c.toml:2: keys.reap: an action needs a key`}},
		{"ctrl+m is enter", "[keys]\nreap = \"ctrl+m\"\n",
			[]string{`c.toml:2: keys.reap: "ctrl+m" never arrives: terminals send it as enter; bind "enter", or another key`}},
		{"ctrl+i is tab", "[keys]\n\nexplain = [\"E\", \"ctrl+i\"]\n",
			[]string{`c.toml:3: keys.explain: "ctrl+i" never arrives: terminals send it as tab; bind "tab", or another key`}},
		{"a bidi override", "[keys]\nreap = \"\u202e\"\n",
			[]string{`c.toml:2: keys.reap: "\u202e" holds U+202E, a control, bidi or other character that is not printed`}},
		{"a C1 control", "[keys]\nreap = \"\u009b\"\n", []string{`c.toml:2: keys.reap: "\u009b" holds U+009B, a control`}},
		{"a C1 control in a name", "[keys]\nreap = \"alt+\u0085\"\n", []string{`c.toml:2: keys.reap: "alt+\u0085" holds U+0085, a control`}},
		{"a zero-width space", "[keys]\nreap = \"\u200b\"\n", []string{`c.toml:2: keys.reap: "\u200b" holds U+200B`}},
		{"a no-break space", "[keys]\nreap = \"\u00a0\"\n", []string{`c.toml:2: keys.reap: "\u00a0" holds U+00A0`}},
		{"a combining mark alone", "[keys]\nreap = \"\u0301\"\n", []string{`c.toml:2: keys.reap: "\u0301" holds U+0301`}},
		{"an action named with controls", "[keys]\n\"\u009b31m\u202e\" = \"z\"\n",
			[]string{`c.toml:2: keys.\u009b31m\u202e: unknown action`}},
		{"keys not a table", "keys = 1\n", []string{`c.toml:1: keys must be a table of action = key`}},
		{"unknown column", "[columns.pools]\nhidden = [\"beats\"]\n",
			[]string{`c.toml:2: columns.pools.hidden: no column "beats" (the columns are status, pool, host:pid, beat, started, conc, inprog, locks, jobs)`}},
		{"unknown view", "[columns.pool]\nhidden = [\"beat\"]\n",
			[]string{`c.toml:1: columns.pool: unknown view (the views are fleet, jobs, jobtypes, orphans, pools, workers)`}},
		{"the row's column hidden", "[columns.pools]\nhidden = [\"pool\"]\n",
			[]string{`c.toml:2: columns.pools.hidden: the pool column names the row and cannot be hidden`}},
		{"the row's column left out", "\n[columns.jobs]\nvisible = [\"when\", \"error\"]\n",
			[]string{`c.toml:3: columns.jobs.visible: the id column names the row and cannot be hidden`}},
		{"both lists", "[columns.orphans]\nvisible = [\"key\"]\nhidden = [\"job\"]\n",
			[]string{`c.toml:3: columns.orphans: give visible or hidden, not both`}},
		{"twice", "[columns.workers]\nvisible = [\"worker\", \"job\", \"Job\"]\n",
			[]string{`c.toml:2: columns.workers.visible: column "job" is given twice`}},
		{"unknown key of a view", "[columns.fleet]\nshow = [\"target\"]\n",
			[]string{`c.toml:2: columns.fleet.show: unknown key (the keys are visible and hidden)`}},
		{"every problem at once, in line order", "[keys]\nreap = \"xx\"\n[columns.pools]\nhidden = [\"nope\"]\n[targets.a]\nredis = 1\n",
			[]string{`c.toml:2: keys.reap:`, `c.toml:4: columns.pools.hidden:`, `c.toml:6: targets.a.redis:`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.toml", []byte(tt.doc), 0o600, "")
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("error %v (%T), want Problems", err, err)
			}
			if len(ps) != len(tt.want) {
				t.Fatalf("%d problems, want %d:\n%v", len(ps), len(tt.want), err)
			}
			for i, p := range ps {
				if !strings.HasPrefix(p.String(), tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, p, tt.want[i])
				}
				if strings.Contains(p.String(), "\n") {
					t.Errorf("problem %d is more than one line: %q", i, p)
				}
			}
		})
	}
}
