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

// splitTerms cuts a query at spaces outside double quotes. In a quoted
// value, \" is a quote and \\ a backslash.
func splitTerms(text string) ([]term, error) {
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
		j := i
		for j < len(text) && !isQuerySpace(text[j]) && text[j] != ':' && text[j] != '~' && text[j] != '>' && text[j] != '<' && text[j] != '"' {
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
			word := text[start:end]
			return nil, fmt.Errorf("%w: %q is not a term: write KEY:VALUE (%s), e.g. job:%s", ErrBadQuery, word, strings.Join(queryKeys, ", "), strings.Trim(word, `"`))
		}
		j += len(op)
		var value strings.Builder
		if j < len(text) && text[j] == '"' {
			j++
			closed := false
			for j < len(text) {
				c := text[j]
				if c == '\\' && j+1 < len(text) && (text[j+1] == '"' || text[j+1] == '\\') {
					value.WriteByte(text[j+1])
					j += 2
					continue
				}
				if c == '"' {
					closed = true
					j++
					break
				}
				value.WriteByte(c)
				j++
			}
			if !closed {
				return nil, fmt.Errorf("%w: the quote after %q is not closed", ErrBadQuery, key+op)
			}
			if j < len(text) && !isQuerySpace(text[j]) {
				return nil, fmt.Errorf("%w: a space must follow the closing quote of %q", ErrBadQuery, key+op)
			}
		} else {
			for j < len(text) && !isQuerySpace(text[j]) {
				value.WriteByte(text[j])
				j++
			}
		}
		out = append(out, term{key: key, op: op, value: value.String(), src: text[start:j]})
		i = j
	}
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
