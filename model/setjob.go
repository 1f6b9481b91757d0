package model

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SetName names one of gocraft/work's job sets: the sorted sets
// `<ns>:retry`, `<ns>:scheduled` and `<ns>:dead`.
type SetName string

// The three job sets.
const (
	SetRetry     SetName = "retry"
	SetScheduled SetName = "scheduled"
	SetDead      SetName = "dead"
)

// ParseSetName reads "retry", "scheduled" or "dead".
func ParseSetName(s string) (SetName, error) {
	switch SetName(s) {
	case SetRetry, SetScheduled, SetDead:
		return SetName(s), nil
	}
	return "", fmt.Errorf("unknown job set %q: want retry, scheduled or dead", s)
}

// ScoreField is what the score means, named as gocraft/work's Client names
// it: retry_at, run_at or died_at (epoch seconds).
func (s SetName) ScoreField() string {
	switch s {
	case SetRetry:
		return "retry_at"
	case SetScheduled:
		return "run_at"
	case SetDead:
		return "died_at"
	}
	return "score"
}

// NewestFirst reports the set's natural order: the dead set lists the most
// recent death first; retry and scheduled list the soonest due first.
func (s SetName) NewestFirst() bool { return s == SetDead }

// SetJob is one member of a job set: its score and exact bytes, and the job
// decoded from them when they are a JSON object.
type SetJob struct {
	// Set is the set the member was read from.
	Set SetName
	// Score is the member's score; ScoreText is how Redis wrote it, which is
	// what addresses the member again (a fractional score stays fractional).
	Score     float64
	ScoreText string
	// Raw is the member, byte for byte.
	Raw []byte
	// Job is the decoded member; nil when Raw is not a JSON object.
	Job *JobFields
	// Problem says why Raw is not a job (not JSON, or a field of the wrong
	// type); "" when it reads cleanly.
	Problem string
}

// ParseSetJob reads a member and its score as Redis returned them. It never
// fails: a member that is not a JSON object is kept raw, with Problem set.
func ParseSetJob(set SetName, raw []byte, scoreText string) SetJob {
	sj := SetJob{Set: set, Raw: raw}
	sj.setScore(scoreText)
	j := new(JobFields)
	sj.setJob(j, readJob(raw, j, nil))
	return sj
}

// ParseSetJobInto reads a member as ParseSetJob does, into fields the
// caller provides (f is overwritten): a caller that reads many members and
// keeps few reads each into the same memory.
func ParseSetJobInto(set SetName, raw []byte, scoreText string, f *JobFields) SetJob {
	sj := SetJob{Set: set, Raw: raw}
	sj.setScore(scoreText)
	*f = JobFields{}
	sj.setJob(f, readJob(raw, f, nil))
	return sj
}

// ParseMember reads a member whose score is not known yet, as ParseSetJob
// reads it; SetScore completes it.
func ParseMember(set SetName, raw []byte) SetJob {
	sj := SetJob{Set: set, Raw: raw}
	j := new(JobFields)
	sj.setJob(j, readJob(raw, j, nil))
	return sj
}

// SetScore gives a member read by ParseMember its score as Redis wrote it.
// A score that is not a number is the member's problem before any other,
// as ParseSetJob reports it.
func (sj *SetJob) SetScore(scoreText string) {
	problem := sj.Problem
	sj.Problem = ""
	sj.setScore(scoreText)
	if sj.Problem == "" {
		sj.Problem = problem
	}
}

// ParseSetJobs reads the members of one reply that are kept together, as a
// page is, each as ParseSetJob reads it: pairs holds a member, its score, a
// member, its score... The jobs' fields share one allocation, and their
// text and scores another, rather than three allocations a job; so a job
// kept alone keeps the others' memory too.
func ParseSetJobs(set SetName, pairs [][]byte) []SetJob {
	out := make([]SetJob, len(pairs)/2)
	fields := make([]JobFields, len(out))
	size := 0
	for _, p := range pairs {
		// A job's text is no longer than its bytes, but for U+FFFD
		// written for invalid UTF-8 (text then grows).
		size += len(p)
	}
	var text strings.Builder
	text.Grow(size)
	for i := range out {
		sj := &out[i]
		raw, score := pairs[2*i], pairs[2*i+1]
		sj.Set, sj.Raw = set, raw
		from := text.Len()
		text.Write(score)
		sj.setScore(text.String()[from:])
		sj.setJob(&fields[i], readJob(raw, &fields[i], &text))
	}
	return out
}

func (sj *SetJob) setScore(scoreText string) {
	sj.ScoreText = scoreText
	// gocraft/work's scores are integers: read at once, and as ParseFloat
	// reads them (both round to the nearest float64). "-0" is left to
	// ParseFloat, whose zero keeps its sign.
	if n, ok := smallInt(scoreText); ok && scoreText[0] != '-' {
		sj.Score = float64(n)
		return
	}
	f, err := strconv.ParseFloat(scoreText, 64)
	if err != nil {
		sj.Problem = fmt.Sprintf("score %q is not a number", scoreText)
	}
	sj.Score = f
}

// setJob keeps what readJob read: the fields when the member is a JSON
// object, and the first problem.
func (sj *SetJob) setJob(j *JobFields, r jobRead) {
	if r.state == scanDone {
		sj.Job = j
	}
	if p := r.problem(sj.Raw); p != "" && sj.Problem == "" {
		sj.Problem = p
	}
}

// MarshalJSON writes the member as gocraft/work's Client does (the score
// field, then the job's fields, flat), with `args` byte for byte. A member
// that is not a job is written as {"<score field>": s, "raw": "...",
// "problem": "..."}. A score that JSON cannot hold (±inf) is written as a
// string.
func (sj SetJob) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	writeKey(&b, sj.Set.ScoreField())
	b.WriteString(scoreJSON(sj))
	if sj.Job == nil {
		b.WriteByte(',')
		writeKey(&b, "raw")
		writeString(&b, string(sj.Raw))
	} else {
		j := sj.Job
		for _, f := range []struct {
			k string
			v any
		}{{"id", j.ID}, {"name", j.Name}, {"t", j.EnqueuedAt}} {
			b.WriteByte(',')
			writeKey(&b, f.k)
			writeValue(&b, f.v)
		}
		b.WriteByte(',')
		writeKey(&b, "args")
		if len(j.Args) == 0 {
			b.WriteString("null")
		} else {
			b.Write(j.Args)
		}
		for _, f := range []struct {
			k string
			v any
		}{{"unique", j.Unique}, {"unique_key", j.UniqueKey}, {"fails", j.Fails}, {"err", j.LastErr}, {"failed_at", j.FailedAt}} {
			if f.k == "unique_key" && j.UniqueKey == "" {
				continue
			}
			b.WriteByte(',')
			writeKey(&b, f.k)
			writeValue(&b, f.v)
		}
	}
	if sj.Problem != "" {
		b.WriteByte(',')
		writeKey(&b, "problem")
		writeString(&b, sj.Problem)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// scoreJSON is the score as a JSON value.
func scoreJSON(sj SetJob) string {
	if math.IsInf(sj.Score, 0) || math.IsNaN(sj.Score) || !json.Valid([]byte(sj.ScoreText)) {
		s, _ := json.Marshal(sj.ScoreText)
		return string(s)
	}
	return sj.ScoreText
}

func writeKey(b *strings.Builder, k string) {
	writeString(b, k)
	b.WriteByte(':')
}

func writeString(b *strings.Builder, s string) {
	out, _ := json.Marshal(s)
	b.Write(out)
}

func writeValue(b *strings.Builder, v any) {
	out, _ := json.Marshal(v)
	b.Write(out)
}
