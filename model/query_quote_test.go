package model

import (
	"fmt"
	"strings"
	"testing"
)

// TestParseQuerySingleQuotes: single quotes quote a value as a shell's
// do, every character as it is up to the next single quote, so a regular
// expression with spaces and backslashes reads the same on the screen,
// in the CLI and in the configuration file.
func TestParseQuerySingleQuotes(t *testing.T) {
	for _, tc := range []struct{ query, errs, res string }{
		{query: `err~'gateway (timeout|reset)'`, res: `[gateway (timeout|reset)]`},
		{query: `err~'^dial tcp .*: i/o timeout$'`, res: `[^dial tcp .*: i/o timeout$]`},
		{query: `err~'\d+ ms' job:x`, res: `[\d+ ms]`},
		{query: `err:'say "hi"'`, errs: `[say "hi"]`},
		{query: `err:"it's late"`, errs: `[it's late]`},
		{query: `err:it's`, errs: `[it's]`}, // a quote inside a word is a character
		{query: `err:'a\'`, errs: `[a\]`},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q := parseQ(t, tc.query)
			if tc.errs != "" && fmt.Sprint(q.Errs) != tc.errs {
				t.Errorf("errs %v, want %s", q.Errs, tc.errs)
			}
			if tc.res != "" {
				var got []string
				for _, re := range q.ErrREs {
					got = append(got, re.String())
				}
				if fmt.Sprint(got) != tc.res {
					t.Errorf("regular expressions %v, want %s", got, tc.res)
				}
			}
		})
	}
	for query, want := range map[string]string{
		`err~'gateway (timeout`: `the quote after "err~" is not closed`,
		`err:'a'b`:              `a space must follow the closing quote of "err:"`,
		`'gateway timeout'`:     `"'gateway timeout'" is not a term`,
		`job:x 'open`:           `the quote at "'open" is not closed`,
	} {
		if _, err := parseQuery(query); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", query, err, want)
		}
	}
}

func parseQuery(s string) (*Query, error) {
	return ParseQuery(s, QueryClock{Now: queryNow})
}

// TestSplitQuery: the screen's words, cut as the language cuts them.
func TestSplitQuery(t *testing.T) {
	words, err := SplitQuery(`sync err~'gateway (timeout|reset)' "send mail" 'a b' http/x:1 o'brien`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range words {
		if w.Term {
			got = append(got, "T="+w.Src)
		} else {
			got = append(got, "P="+w.Plain)
		}
	}
	want := `[P=sync T=err~'gateway (timeout|reset)' P=send mail P=a b P=http/x:1 P=o'brien]`
	if fmt.Sprint(got) != want {
		t.Errorf("got  %v\nwant %s", got, want)
	}
	if _, err := SplitQuery(`err:'open`); err == nil {
		t.Error("an open quote is not refused")
	}
}

// TestQuoteQueryValue: a quoted value reads back as the value.
func TestQuoteQueryValue(t *testing.T) {
	for _, v := range []string{"send_mail", "a b", "it's", `it's "x" \ y`, "'lead", `"lead`, "tab\there", "x'"} {
		q := parseQ(t, "err:"+QuoteQueryValue(v))
		if len(q.Errs) != 1 || q.Errs[0] != strings.ToLower(v) {
			t.Errorf("%q: quoted %s, read back %q", v, QuoteQueryValue(v), q.Errs)
		}
	}
	if QuoteQueryValue("send_mail") != "send_mail" {
		t.Errorf("a plain value is quoted: %s", QuoteQueryValue("send_mail"))
	}
}
