package model

// This file matches a parsed query (query.go) against set members and queue
// jobs, reading a JSON path in the arguments with the scanner of
// setjob_json.go.

import (
	"bytes"
	"strconv"
	"strings"
)

// Empty reports whether the query matches every job.
func (q *Query) Empty() bool {
	return q == nil || (len(q.Jobs) == 0 && len(q.NameParts) == 0 && len(q.Errs) == 0 && len(q.ErrREs) == 0 && len(q.IDs) == 0 &&
		len(q.Args) == 0 && len(q.Paths) == 0 && q.MinFails < 0 && q.MaxFails < 0 && !q.HasSince && !q.HasUntil)
}

// HasTime reports whether the query bounds the set's time.
func (q *Query) HasTime() bool { return q != nil && (q.HasSince || q.HasUntil) }

// ScoreRange is the range of scores a set's members matching the query lie
// in, as ZRANGEBYSCORE takes it ("-inf", "+inf" when unbounded). For dead
// and scheduled the score is the query's time. For retry the score is when
// the job is due, never before its last failure (failed_at): since bounds
// the score too; until does not.
func (q *Query) ScoreRange(set SetName) (lo, hi string) {
	lo, hi = "-inf", "+inf"
	if q == nil {
		return lo, hi
	}
	if q.HasSince {
		lo = strconv.FormatInt(q.Since, 10)
	}
	if q.HasUntil && set != SetRetry {
		hi = strconv.FormatInt(q.Until, 10)
	}
	return lo, hi
}

// MatchSetJob reports whether a member of a set matches, its time being the
// death for dead, the run time for scheduled (both the score, which must
// have been read when the query has time terms) and the last failure for
// retry. A member that is not a job matches only the empty query.
func (q *Query) MatchSetJob(sj SetJob) bool {
	if q.Empty() {
		return true
	}
	if sj.Job == nil {
		return false
	}
	if q.HasTime() {
		switch {
		case sj.Set == SetRetry:
			if !q.MatchTime(sj.Job.FailedAt) {
				return false
			}
		case sj.ScoreText == "" || !q.MatchScore(sj.Score):
			return false
		}
	}
	return q.MatchFields(sj.Job)
}

// MatchQueueJob reports whether a job of a queue matches, its time being
// its enqueue time (t).
func (q *Query) MatchQueueJob(j *JobFields) bool {
	if q.Empty() {
		return true
	}
	if j == nil {
		return false
	}
	return q.MatchTime(j.EnqueuedAt) && q.MatchFields(j)
}

// MatchTime reports whether a time (epoch seconds) is within since and
// until.
func (q *Query) MatchTime(at int64) bool {
	if q == nil {
		return true
	}
	return (!q.HasSince || at >= q.Since) && (!q.HasUntil || at <= q.Until)
}

// MatchFields reports whether a job matches every term but the time terms.
func (q *Query) MatchFields(j *JobFields) bool {
	if q == nil {
		return true
	}
	if j == nil {
		return q.Empty()
	}
	for _, id := range q.IDs {
		if j.ID != id {
			return false
		}
	}
	for _, g := range q.Jobs {
		if !globMatch(g, j.Name) {
			return false
		}
	}
	if len(q.NameParts) > 0 {
		low := strings.ToLower(j.Name)
		for _, p := range q.NameParts {
			if !strings.Contains(low, p) {
				return false
			}
		}
	}
	if q.MinFails >= 0 && j.Fails < q.MinFails || q.MaxFails >= 0 && j.Fails > q.MaxFails {
		return false
	}
	if len(q.Errs) > 0 {
		low := strings.ToLower(j.LastErr)
		for _, e := range q.Errs {
			if !strings.Contains(low, e) {
				return false
			}
		}
	}
	for _, re := range q.ErrREs {
		if !re.MatchString(j.LastErr) {
			return false
		}
	}
	for _, a := range q.Args {
		if !bytes.Contains(j.Args, []byte(a)) {
			return false
		}
	}
	for _, p := range q.Paths {
		if !pathMatch(j.Args, p) {
			return false
		}
	}
	return true
}

// JobName is the one job name the query selects exactly (a job: term that
// is not a glob), or "".
func (q *Query) JobName() string {
	if q == nil {
		return ""
	}
	for _, g := range q.Jobs {
		if !strings.ContainsAny(g, "*?") {
			return g
		}
	}
	return ""
}

// ID is the one id the query selects, or "".
func (q *Query) ID() string {
	if q == nil || len(q.IDs) == 0 {
		return ""
	}
	return q.IDs[0]
}

// globMatch matches a name against a pattern in which * is any run of
// bytes and ? any one byte; every other byte stands for itself.
func globMatch(pattern, name string) bool {
	px, nx := 0, 0
	nextPx, nextNx := -1, -1
	for px < len(pattern) || nx < len(name) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				nextPx, nextNx = px, nx+1
				px++
				continue
			case '?':
				if nx < len(name) {
					px++
					nx++
					continue
				}
			default:
				if nx < len(name) && name[nx] == c {
					px++
					nx++
					continue
				}
			}
		}
		if nextNx > 0 && nextNx <= len(name) {
			px, nx = nextPx, nextNx
			continue
		}
		return false
	}
	return true
}

// pathMatch reports whether the value at a path of the arguments has the
// term's text: a string compared unquoted, any other value by its JSON
// text as stored (so a 17-digit number matches by its digits, never
// rounded). When a key appears twice in an object, the last one counts, as
// with encoding/json.
func pathMatch(args []byte, p PathTerm) bool {
	v, ok := jsonPath(args, p.Path)
	if !ok {
		return false
	}
	if len(v) > 0 && v[0] == '"' {
		if bytes.IndexByte(v, '\\') < 0 {
			return string(v[1:len(v)-1]) == p.Value
		}
		var b strings.Builder
		unquoteTo(&b, v[1:len(v)-1])
		return b.String() == p.Value
	}
	return string(v) == p.Value
}

// jsonPath is the value at a path of keys in a JSON text, as stored; a key
// that is a number also indexes an array.
func jsonPath(b []byte, path []string) ([]byte, bool) {
	for _, key := range path {
		i := skipSpace(b, 0)
		if i < len(b) && b[i] == '[' {
			v, ok := arrayIndex(b, key)
			if !ok {
				return nil, false
			}
			b = v
			continue
		}
		s := newObjectScan(b)
		var m member
		var found []byte
		for s.next(&m) {
			end, escaped, _ := scanString(b, m.start)
			lit := b[m.start+1 : end-1]
			match := !escaped && string(lit) == key
			if escaped {
				var kb strings.Builder
				unquoteTo(&kb, lit)
				match = kb.String() == key
			}
			if match {
				found = b[m.valStart:m.valEnd]
			}
		}
		if s.state != scanDone || found == nil {
			return nil, false
		}
		b = found
	}
	return bytes.TrimSpace(b), true
}

// arrayIndex is element n of a JSON array.
func arrayIndex(b []byte, key string) ([]byte, bool) {
	n, err := strconv.Atoi(key)
	if err != nil || n < 0 {
		return nil, false
	}
	i := skipSpace(b, 0) + 1
	for k := 0; ; k++ {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return nil, false
		}
		end, ok := scanValue(b, i, 2)
		if !ok {
			return nil, false
		}
		if k == n {
			return b[i:end], true
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return nil, false
		}
		i++
	}
}
