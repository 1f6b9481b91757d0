package redisq

// This file owns the scans of a job set: a filtered page and a summary by
// job type and error, both by ZSCAN, one call per step, optionally paced
// like the orphan scan.

import (
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"time"
	"unicode"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// SetFilter selects members of a job set. The zero filter selects all.
type SetFilter struct {
	// Job is an exact job name.
	Job string
	// Error is text the job's err must contain, ignoring case.
	Error string
	// ID is an exact job id.
	ID string
}

// Empty reports whether the filter selects every member.
func (f SetFilter) Empty() bool { return f.Job == "" && f.Error == "" && f.ID == "" }

// Match reports whether a member is selected. A member that is not a job is
// selected only by the empty filter.
func (f SetFilter) Match(sj model.SetJob) bool {
	if f.Empty() {
		return true
	}
	if sj.Job == nil {
		return false
	}
	if f.ID != "" && sj.Job.ID != f.ID {
		return false
	}
	if f.Job != "" && sj.Job.Name != f.Job {
		return false
	}
	if f.Error != "" && !strings.Contains(strings.ToLower(sj.Job.LastErr), strings.ToLower(f.Error)) {
		return false
	}
	return true
}

// Pattern is the ZSCAN MATCH pattern that lets Redis drop most members that
// cannot match: `*"<id>"*` for a job id, `*"<name>"*` for a job name, a case-blind `*<text>*` for an
// error, "*" when the text holds a character some JSON encoder may write
// escaped (gocraft/work's two encoders, Go's and Lua's cjson, write every
// other character as itself). It only narrows: Match decides.
func (f SetFilter) Pattern() string {
	switch {
	case f.ID != "" && literalInJSON(f.ID):
		return "*" + escapeGlob(`"`+f.ID+`"`) + "*"
	case f.Job != "" && literalInJSON(f.Job):
		return "*" + escapeGlob(`"`+f.Job+`"`) + "*"
	case f.Error != "" && literalInJSON(f.Error):
		var b strings.Builder
		b.WriteByte('*')
		for _, r := range f.Error {
			lo, up := unicode.ToLower(r), unicode.ToUpper(r)
			if r < 0x80 && lo != up {
				b.WriteString("[" + string(lo) + string(up) + "]")
				continue
			}
			if r >= 0x80 && lo != up {
				// Case folding outside ASCII may change byte lengths: let
				// Match decide.
				return "*"
			}
			b.WriteString(escapeGlob(string(r)))
		}
		b.WriteByte('*')
		return b.String()
	}
	return "*"
}

// literalInJSON reports whether Go's encoder and cjson both write s as is.
func literalInJSON(s string) bool {
	for _, r := range s {
		switch {
		case r < 0x20, r == 0x7f, r == '"', r == '\\', r == '/', r == '<', r == '>', r == '&',
			r == 0x2028, r == 0x2029, r == unicode.ReplacementChar:
			return false
		}
	}
	return true
}

// DefaultSetScanCount is the COUNT hint of each ZSCAN call.
const DefaultSetScanCount = 1000

// SetScanProgress is how far a set scan has got.
type SetScanProgress struct {
	// Calls is the number of ZSCAN calls so far; Seen the distinct members
	// returned (after MATCH), Matched those the filter selected.
	Calls   int
	Seen    int64
	Matched int64
	// Size is the set's size when the scan started (ZCARD).
	Size int64
	Done bool
}

// SetScan walks one job set with ZSCAN, one call per Step, returning each
// member once even when ZSCAN repeats it (it may while the set is
// resized). Members present for the whole walk are all returned; members
// added or removed meanwhile may or may not be. It keeps an 8-byte hash per
// member seen, never the members. Used by one goroutine at a time.
type SetScan struct {
	key    string
	set    model.SetName
	filter SetFilter
	match  string
	count  int
	cursor string
	seed   maphash.Seed
	seen   map[uint64]struct{}
	prog   SetScanProgress
	// ahead: each Step sends the next ZSCAN before it reads the members it
	// received, so Redis scans while the caller parses; pending: that call
	// is sent and its reply not read yet.
	ahead, pending bool
}

// ReadAhead makes each Step send the next ZSCAN call before it parses the
// members of the current one, so that Redis and the caller work at the
// same time. The caller must then either step the scan to its end or call
// Drain before using the connection for anything else.
func (s *SetScan) ReadAhead() { s.ahead = true }

// Drain reads the reply of a ZSCAN call sent ahead and not read yet.
func (s *SetScan) Drain(ctx context.Context, c redis.Conn) error {
	if !s.pending {
		return nil
	}
	s.pending = false
	if _, err := redis.ReceiveContext(c, ctx); err != nil && !isErrorReply(err) {
		return fmt.Errorf("scan %s: %w", s.key, err)
	}
	return nil
}

// NewSetScan starts a scan of a set; count is the COUNT hint
// (DefaultSetScanCount when not positive).
func NewSetScan(keys Keys, set model.SetName, filter SetFilter, count int) *SetScan {
	if count <= 0 {
		count = DefaultSetScanCount
	}
	return &SetScan{key: SetKey(keys, set), set: set, filter: filter, match: filter.Pattern(), count: count,
		cursor: "0", seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
}

// Progress is how far the scan has got.
func (s *SetScan) Progress() SetScanProgress { return s.prog }

// Step makes one ZSCAN call (the first also reads ZCARD, in the same round
// trip) and returns the new members the filter selects.
func (s *SetScan) Step(ctx context.Context, c redis.Conn) ([]model.SetJob, error) {
	if s.prog.Done {
		return nil, nil
	}
	first := s.prog.Calls == 0
	if !s.pending {
		if first {
			if err := c.Send("ZCARD", s.key); err != nil {
				return nil, fmt.Errorf("scan %s: %w", s.key, err)
			}
		}
		if err := s.send(c); err != nil {
			return nil, err
		}
	}
	s.pending = false
	if first {
		n, err := redis.Int64(redis.ReceiveContext(c, ctx))
		if err != nil {
			if isErrorReply(err) {
				_, _ = redis.ReceiveContext(c, ctx)
			}
			return nil, fmt.Errorf("scan %s: %w", s.key, err)
		}
		s.prog.Size = n
	}
	reply, err := redis.Values(redis.ReceiveContext(c, ctx))
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", s.key, err)
	}
	var next string
	var items []any
	if _, err := redis.Scan(reply, &next, &items); err != nil {
		return nil, fmt.Errorf("scan %s: unexpected reply: %w", s.key, err)
	}
	if s.ahead && next != "0" {
		s.cursor = next
		if err := s.send(c); err != nil {
			return nil, err
		}
		s.pending = true
	}
	jobs, err := parseWithScores(s.set, items)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", s.key, err)
	}
	s.prog.Calls++
	out := jobs[:0]
	for _, sj := range jobs {
		h := maphash.Bytes(s.seed, sj.Raw)
		if _, dup := s.seen[h]; dup {
			continue
		}
		s.seen[h] = struct{}{}
		s.prog.Seen++
		if s.filter.Match(sj) {
			s.prog.Matched++
			out = append(out, sj)
		}
	}
	s.cursor = next
	s.prog.Done = next == "0"
	return out, nil
}

// send sends and flushes the ZSCAN call at the cursor.
func (s *SetScan) send(c redis.Conn) error {
	if err := c.Send("ZSCAN", s.key, s.cursor, "MATCH", s.match, "COUNT", s.count); err != nil {
		return fmt.Errorf("scan %s: %w", s.key, err)
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("scan %s: %w", s.key, err)
	}
	return nil
}

// ScanOptions drive a whole scan.
type ScanOptions struct {
	// Count is the ZSCAN COUNT hint (DefaultSetScanCount when not positive).
	Count int
	// Paced makes the scan wait after each call model.ScanPause(its duration), as
	// the screen's orphan scan does, so that Redis stays free for others.
	Paced bool
	// Progress, when not nil, is called after every call.
	Progress func(SetScanProgress)
}

// run steps a scan to its end, handing each step's members to each.
func (o ScanOptions) run(ctx context.Context, c redis.Conn, s *SetScan, each func([]model.SetJob)) error {
	for !s.prog.Done {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scan %s: %w", s.key, err)
		}
		start := time.Now()
		jobs, err := s.Step(ctx, c)
		if err != nil {
			return err
		}
		took := time.Since(start)
		each(jobs)
		if o.Progress != nil {
			o.Progress(s.prog)
		}
		if o.Paced && !s.prog.Done {
			t := time.NewTimer(model.ScanPause(took))
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("scan %s: %w", s.key, ctx.Err())
			case <-t.C:
			}
		}
	}
	return nil
}

// FilterSetPage scans a set for the members a filter selects and returns
// one page of them in the page's order; Total is how many matched. It holds
// at most about twice Offset+Limit members at a time.
func FilterSetPage(ctx context.Context, c redis.Conn, keys Keys, set model.SetName, f SetFilter, o PageOptions, so ScanOptions) (SetPage, error) {
	page := SetPage{Set: set, Offset: max(o.Offset, 0)}
	keep := &bestN{n: page.Offset + o.limit(), less: naturalLess(o.newestFirst(set))}
	s := NewSetScan(keys, set, f, so.Count)
	err := so.run(ctx, c, s, func(jobs []model.SetJob) {
		for _, sj := range jobs {
			keep.add(sj)
		}
	})
	if err != nil {
		return page, err
	}
	keep.trim()
	page.Total = s.prog.Matched
	page.Jobs = []model.SetJob{}
	if page.Offset < len(keep.jobs) {
		page.Jobs = keep.jobs[page.Offset:]
	}
	return page, nil
}

// SummarizeSet counts the members a filter selects by job type and by
// normalised error (model.NormalizeError), scanning the whole set.
func SummarizeSet(ctx context.Context, c redis.Conn, keys Keys, set model.SetName, f SetFilter, so ScanOptions) (*model.SetSummary, error) {
	sum := model.NewSetSummary(set)
	s := NewSetScan(keys, set, f, so.Count)
	err := so.run(ctx, c, s, func(jobs []model.SetJob) {
		for _, sj := range jobs {
			sum.Add(sj)
		}
	})
	return sum, err
}
