package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// TestQueryExamplesInDocs: every query the documentation shows parses:
// a --where argument as the shell hands it over (model.ParseQuery, what
// the CLI reads), a code span written as a term, a :where or / of the
// screen (parseSetsQuery). The examples are read from the markdown, so a
// new one is checked without touching this test.
func TestQueryExamplesInDocs(t *testing.T) {
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../README.md")
	now := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	clock := model.QueryClock{Now: now, Zone: time.UTC}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range docQueryExamples(string(b)) {
			n++
			var err error
			if ex.screen {
				_, err = parseSetsQuery(ex.text, now)
			} else {
				_, err = model.ParseQuery(ex.text, clock)
			}
			where := filepath.Base(f) + ":" + strconv.Itoa(ex.line)
			switch {
			case refusedInDocs[ex.text] && err == nil:
				t.Errorf("%s: %s: shown as refused, but it parses", where, ex.text)
			case !refusedInDocs[ex.text] && err != nil:
				t.Errorf("%s: %s: %v", where, ex.text, err)
			}
		}
	}
	if n < 20 {
		t.Fatalf("found %d query examples in the docs; the extraction is broken", n)
	}
}

// refusedInDocs are the examples the docs show being refused.
var refusedInDocs = map[string]bool{
	"since:-999999h":  true,
	"since:9999999h":  true,
	"since:yesterday": true,
}

type docQuery struct {
	text   string
	screen bool
	line   int
}

var (
	docWhereFlag = regexp.MustCompile(`--where[ =]('[^'\n]*'|"(?:[^"\\\n]|\\.)*"|[^\s` + "`" + `'"\]]+)`)
	docMetaName  = regexp.MustCompile(`^([a-z.]+(:|~|>=|<=))?[A-Z_]+$`)
	docSaved     = regexp.MustCompile(`^[A-Za-z0-9_-]+ *= *('[^']*'|"(?:[^"\\]|\\.)*")$`)
	docCodeSpan  = regexp.MustCompile("`([^`]+)`")
	docTermSpan  = regexp.MustCompile(`^(job|err|id|args(\.[A-Za-z0-9_.]+)?|fails|since|until)(:|~|>=|<=)\S`)
	docScreen    = regexp.MustCompile(`^(:where |/)(.*[:~<>].*)$`)
)

// docQueryExamples are the queries a markdown file shows, with their
// lines. A name that stands for a value (QUERY, N, …) is not an example.
func docQueryExamples(doc string) []docQuery {
	var out []docQuery
	metaName := func(s string) bool {
		return strings.Contains(s, "…") || strings.Contains(s, "...") || docMetaName.MatchString(s) || strings.HasPrefix(s, "@")
	}
	lineAt := func(text string, off int) int { return strings.Count(text[:off], "\n") + 1 }
	for _, m := range docWhereFlag.FindAllStringSubmatchIndex(doc, -1) {
		text := shellWord(doc[m[2]:m[3]])
		if !metaName(text) {
			out = append(out, docQuery{text: text, line: lineAt(doc, m[0])})
		}
	}
	// Saved queries: NAME = 'QUERY' under [queries] in a fenced block.
	inQueries := false
	for i, l := range strings.Split(doc, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "[queries]":
			inQueries = true
		case strings.HasPrefix(l, "[") || strings.HasPrefix(l, "```"):
			inQueries = false
		case inQueries:
			if m := docSaved.FindStringSubmatch(l); m != nil {
				text := m[1][1 : len(m[1])-1]
				if m[1][0] == '"' {
					text, _ = strconv.Unquote(m[1])
				}
				out = append(out, docQuery{text: text, line: i + 1})
			}
		}
	}
	// Code spans, over line ends but not over a fence.
	prose := withoutFences(doc)
	for _, m := range docCodeSpan.FindAllStringSubmatchIndex(prose, -1) {
		span := strings.Join(strings.Fields(prose[m[2]:m[3]]), " ")
		line := lineAt(prose, m[0])
		switch {
		case strings.HasPrefix(span, "--where") || metaName(span):
		case docTermSpan.MatchString(span):
			out = append(out, docQuery{text: span, line: line})
		default:
			if s := docScreen.FindStringSubmatch(span); len(s) == 3 && !metaName(s[2]) {
				out = append(out, docQuery{text: s[2], screen: true, line: line})
			}
		}
	}
	return out
}

// shellWord is one shell word unquoted (single or double quotes).
func shellWord(w string) string {
	if len(w) >= 2 && w[0] == '\'' && w[len(w)-1] == '\'' {
		return w[1 : len(w)-1]
	}
	if len(w) >= 2 && w[0] == '"' && w[len(w)-1] == '"' {
		return regexp.MustCompile(`\\(.)`).ReplaceAllString(w[1:len(w)-1], "$1")
	}
	return w
}

// withoutFences is doc with the lines of its fenced blocks emptied, so
// that line numbers stay.
func withoutFences(doc string) string {
	lines := strings.Split(doc, "\n")
	in := false
	for i, l := range lines {
		fence := strings.HasPrefix(strings.TrimSpace(l), "```")
		if in || fence {
			lines[i] = ""
		}
		if fence {
			in = !in
		}
	}
	return strings.Join(lines, "\n")
}
