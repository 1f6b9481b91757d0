package model

// This file owns the query language that selects jobs: its terms, their
// parsing and the one-line errors of a bad query. query_match.go matches a
// parsed query against set members and queue jobs.

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ErrBadQuery is every error of ParseQuery.
var ErrBadQuery = errors.New("bad query")

// Query is a parsed query: every term must match. The zero Query matches
// every job.
type Query struct {
	// Text is the query as given.
	Text string
	// Jobs are job: terms, each an exact name or a glob (* and ?).
	Jobs []string
	// NameParts are lower-cased parts of the job name, each matched as a
	// case-insensitive substring: the screen's words that are not terms,
	// as its other views' filters match (no term of the text gives them).
	NameParts []string
	// Errs are err: texts, lower-cased (a case-insensitive substring);
	// ErrREs the err~ regular expressions.
	Errs   []string
	ErrREs []*regexp.Regexp
	// IDs are id: terms (exact).
	IDs []string
	// Args are args: texts, substrings of the raw argument bytes.
	Args []string
	// Paths are args.PATH:VALUE terms.
	Paths []PathTerm
	// MinFails and MaxFails bound fails (inclusive); -1 when unbounded.
	MinFails, MaxFails int64
	// Since and Until bound the set's time, in epoch seconds, inclusive;
	// HasSince and HasUntil say whether they were given.
	Since, Until       int64
	HasSince, HasUntil bool
}

// PathTerm is one args.PATH:VALUE term: the keys of the JSON path into the
// arguments, and the value's text (a string unquoted, any other value as
// written).
type PathTerm struct {
	Path  []string
	Value string
}

// QueryClock is what a query's times are read against: now for an age
// (2h), and the zone of a clock time of today (03:10).
type QueryClock struct {
	Now  time.Time
	Zone *time.Location
}

// queryKeys are the term names, for the did-you-mean of an unknown one.
var queryKeys = []string{"job", "err", "id", "args", "fails", "since", "until"}

// ParseQuery reads a query. An empty text is the query that matches every
// job. A bad query fails with one line naming the term, wrapping
// ErrBadQuery.
func ParseQuery(text string, clock QueryClock) (*Query, error) {
	q := &Query{Text: text, MinFails: -1, MaxFails: -1}
	if clock.Zone == nil {
		clock.Zone = time.UTC
	}
	terms, err := splitTerms(text)
	if err != nil {
		return nil, err
	}
	for _, t := range terms {
		if err := q.add(t, clock); err != nil {
			return nil, err
		}
	}
	if q.HasSince && q.HasUntil && q.Until < q.Since {
		return nil, fmt.Errorf("%w: until:%s is before since:%s", ErrBadQuery,
			time.Unix(q.Until, 0).In(clock.Zone).Format(time.RFC3339), time.Unix(q.Since, 0).In(clock.Zone).Format(time.RFC3339))
	}
	if q.MinFails >= 0 && q.MaxFails >= 0 && q.MaxFails < q.MinFails {
		return nil, fmt.Errorf("%w: fails<=%d is below fails>=%d", ErrBadQuery, q.MaxFails, q.MinFails)
	}
	return q, nil
}

// term is one term as written: its key, its operator (":", "~", ">=",
// "<=") and its value with quotes resolved; src is the term's text.
type term struct {
	key, op, value, src string
}

// splitTerms cuts a query into its terms (cutQuery); a word that is not
// a term is an error that shows how to write one.
func splitTerms(text string) ([]term, error) {
	words, err := cutQuery(text)
	if err != nil {
		return nil, err
	}
	out := make([]term, 0, len(words))
	for _, w := range words {
		if w.op == "" {
			example := QuoteQueryValue(w.value)
			if strings.ContainsFunc(example, unicode.IsControl) || !utf8.ValidString(example) {
				example = "NAME"
			}
			return nil, fmt.Errorf("%w: %q is not a term: write KEY:VALUE (%s), e.g. job:%s", ErrBadQuery, w.src, strings.Join(queryKeys, ", "), example)
		}
		out = append(out, w)
	}
	return out, nil
}

// QueryWord is one word of a query's text, cut as the language cuts it.
type QueryWord struct {
	// Src is the word as written, its quotes kept.
	Src string
	// Term says the word is written as a term: a key of letters, digits,
	// dots, dashes and underscores, then :, ~, >= or <=. An unknown key
	// (erorr:x) is a term, so that ParseQuery says what is wrong with it.
	Term bool
	// Plain is a word that is not a term with its quotes taken away.
	Plain string
}

// SplitQuery cuts text into words as ParseQuery does, for the screen,
// where a word that is not a term means part of a job name. Its only
// error is a quote left open.
func SplitQuery(text string) ([]QueryWord, error) {
	words, err := cutQuery(text)
	if err != nil {
		return nil, err
	}
	out := make([]QueryWord, 0, len(words))
	for _, w := range words {
		if w.op != "" && isTermKey(w.key) {
			out = append(out, QueryWord{Src: w.src, Term: true})
			continue
		}
		plain := w.value
		if w.op != "" {
			plain = w.src
		}
		out = append(out, QueryWord{Src: w.src, Plain: plain})
	}
	return out, nil
}

func isTermKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		if r != '.' && r != '_' && r != '-' && (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// cutQuery cuts a query at spaces outside quotes. A value, or a word
// that is not a term, may be quoted from its first character: in double
// quotes \" is a quote and \\ a backslash; single quotes, as in a shell,
// take every character up to the next single quote as it is (a value
// holding one is written in double quotes). A quote anywhere else is an
// ordinary character. A word that is not a term has no op and its
// unquoted text as value.
func cutQuery(text string) ([]term, error) {
	var out []term
	i := 0
	for {
		for i < len(text) && isQuerySpace(text[i]) {
			i++
		}
		if i >= len(text) {
			return out, nil
		}
		start := i
		if isQueryQuote(text[i]) {
			value, end, err := readQuoted(text, i, "")
			if err != nil {
				return nil, err
			}
			out = append(out, term{value: value, src: text[start:end]})
			i = end
			continue
		}
		j := i
		for j < len(text) && !isQuerySpace(text[j]) && text[j] != ':' && text[j] != '~' && text[j] != '>' && text[j] != '<' && !isQueryQuote(text[j]) {
			j++
		}
		key := text[i:j]
		op := ""
		switch {
		case strings.HasPrefix(text[j:], ">="), strings.HasPrefix(text[j:], "<="):
			op = text[j : j+2]
		case j < len(text) && (text[j] == ':' || text[j] == '~'):
			op = text[j : j+1]
		}
		if op == "" {
			end := j
			for end < len(text) && !isQuerySpace(text[end]) {
				end++
			}
			out = append(out, term{value: text[start:end], src: text[start:end]})
			i = end
			continue
		}
		j += len(op)
		var value string
		if j < len(text) && isQueryQuote(text[j]) {
			v, end, err := readQuoted(text, j, key+op)
			if err != nil {
				return nil, err
			}
			value, j = v, end
		} else {
			end := j
			for end < len(text) && !isQuerySpace(text[end]) {
				end++
			}
			value, j = text[j:end], end
		}
		out = append(out, term{key: key, op: op, value: value, src: text[start:j]})
		i = j
	}
}

// readQuoted reads the quoted text that starts at text[i] and returns it
// unquoted and the index after its closing quote, which must end the
// word. after names what the quote follows, for the errors.
func readQuoted(text string, i int, after string) (string, int, error) {
	quote := text[i]
	var value strings.Builder
	j := i + 1
	closed := false
	for j < len(text) {
		c := text[j]
		if quote == '"' && c == '\\' && j+1 < len(text) && (text[j+1] == '"' || text[j+1] == '\\') {
			value.WriteByte(text[j+1])
			j += 2
			continue
		}
		if c == quote {
			closed = true
			j++
			break
		}
		value.WriteByte(c)
		j++
	}
	what := fmt.Sprintf("after %q", after)
	if after == "" {
		what = fmt.Sprintf("at %q", truncateWord(text[i:]))
	}
	if !closed {
		return "", 0, fmt.Errorf("%w: the quote %s is not closed", ErrBadQuery, what)
	}
	if j < len(text) && !isQuerySpace(text[j]) {
		if after == "" {
			return "", 0, fmt.Errorf("%w: a space must follow the closing quote of %q", ErrBadQuery, text[i:j])
		}
		return "", 0, fmt.Errorf("%w: a space must follow the closing quote of %q", ErrBadQuery, after)
	}
	return value.String(), j, nil
}

// truncateWord is the start of text up to its first space, for an error.
func truncateWord(text string) string {
	for k := 0; k < len(text); k++ {
		if isQuerySpace(text[k]) {
			return text[:k]
		}
	}
	return text
}

func isQueryQuote(c byte) bool { return c == '"' || c == '\'' }

// QuoteQueryValue writes s as one value of the language: as it is when
// it needs no quotes, else in single quotes, else (it holds one) in
// double quotes with \" and \\.
func QuoteQueryValue(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\r") && !isQueryQuote(s[0]) {
		return s
	}
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

func isQuerySpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// add reads one term into q.
func (q *Query) add(t term, clock QueryClock) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: term %q: %s", ErrBadQuery, t.src, fmt.Sprintf(format, a...))
	}
	if t.value == "" {
		return bad("empty value")
	}
	if !utf8.ValidString(t.value) {
		return bad("not valid UTF-8")
	}
	key, op := t.key, t.op
	if strings.HasPrefix(key, "args.") && op == ":" {
		path := strings.Split(strings.TrimPrefix(key, "args."), ".")
		for _, p := range path {
			if p == "" {
				return bad("empty key in the path %s", key)
			}
		}
		q.Paths = append(q.Paths, PathTerm{Path: path, Value: t.value})
		return nil
	}
	ops := map[string]string{"job": ":", "err": ":~", "id": ":", "args": ":", "fails": ":<=>=", "since": ":", "until": ":"}
	allowed, known := ops[key]
	if !known {
		hint := ""
		if k := nearestKey(key); k != "" {
			hint = fmt.Sprintf(" (did you mean %s%s?)", k, op)
		}
		return fmt.Errorf("%w: unknown term %q%s", ErrBadQuery, key+op, hint)
	}
	if !strings.Contains(allowed, op) {
		return bad("%s takes %s, not %s", key, describeOps(allowed), op)
	}
	switch key {
	case "job":
		q.Jobs = append(q.Jobs, t.value)
	case "err":
		if op == "~" {
			re, err := regexp.Compile(t.value)
			if err != nil {
				return bad("%v", err)
			}
			q.ErrREs = append(q.ErrREs, re)
		} else {
			q.Errs = append(q.Errs, strings.ToLower(t.value))
		}
	case "id":
		q.IDs = append(q.IDs, t.value)
	case "args":
		q.Args = append(q.Args, t.value)
	case "fails":
		n, err := strconv.ParseInt(t.value, 10, 64)
		if err != nil || n < 0 {
			return bad("want a whole number of failures, not %q", t.value)
		}
		if op != "<=" {
			q.MinFails = max(q.MinFails, n)
		}
		if op != ">=" {
			if q.MaxFails < 0 || n < q.MaxFails {
				q.MaxFails = n
			}
		}
	case "since", "until":
		at, err := parseQueryTime(t.value, clock)
		if err != nil {
			return bad("%v", err)
		}
		if key == "since" {
			s := sinceSeconds(at)
			if !q.HasSince || s > q.Since {
				q.Since = s
			}
			q.HasSince = true
		} else {
			u := at.Unix()
			if !q.HasUntil || u < q.Until {
				q.Until = u
			}
			q.HasUntil = true
		}
	}
	return nil
}

func describeOps(allowed string) string {
	if allowed == ":~" {
		return ": or ~"
	}
	if allowed == ":<=>=" {
		return ":, >= or <="
	}
	return allowed
}

// nearestKey is the term name closest to key (at most two edits), or "".
func nearestKey(key string) string {
	best, bestD := "", 3
	low := strings.ToLower(key)
	for _, k := range queryKeys {
		d := EditDistance(low, k)
		if strings.HasPrefix(low, k) || (len(low) >= 2 && strings.HasPrefix(k, low)) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
