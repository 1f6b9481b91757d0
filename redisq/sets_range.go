package redisq

// This file owns the walk of one score range of a job set: the members a
// query with time terms can select lie in it (model.Query.ScoreRange), so
// the walk reads only that range, ZRANGEBYSCORE ... LIMIT in steps, never
// the whole set.

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// SetWalk walks a job set in steps for the members a filter selects:
// SetScan over the whole set, RangeScan over a score range.
type SetWalk interface {
	// Step returns the next members selected (maybe none) and how far the
	// walk has got; Progress().Done ends it.
	Step(ctx context.Context, c redis.Conn) ([]model.SetJob, error)
	Progress() SetScanProgress
	// ReadAhead lets the walk keep a call in flight while the caller works
	// (see SetScan.ReadAhead).
	ReadAhead()
	// Reuse lets each Step return its jobs in the memory of those the
	// Step before returned: the slice, and each job's decoded fields
	// (Job). A caller that keeps a job, or its Job, past the next Step
	// keeps a copy. A walk may ignore it.
	Reuse()
}

// NewSetWalk starts the walk a filter needs: a RangeScan when its query
// bounds the set's time, else a SetScan of the whole set.
func NewSetWalk(keys Keys, set model.SetName, f SetFilter, count int) SetWalk {
	if f.Query.HasTime() {
		lo, hi := f.Query.ScoreRange(set)
		return NewRangeScan(keys, set, f, lo, hi, count)
	}
	return NewSetScan(keys, set, f, count)
}

// RangeScan walks the members of a set whose score lies in [lo, hi], in
// score order (ties by member bytes), count members a call, returning those
// the filter (and its query, time terms included) selects, each once, with
// their scores.
//
// Each call after the first starts at the score of the last member read,
// at the offset among the members of that score where that member was, so
// that the reply starts with it. When it does not (members of that score
// before it were removed in between), the call is made again from the
// first member of that score: no member present for the whole walk is
// missed. Members added or moved during the walk may or may not be
// returned.
type RangeScan struct {
	key    string
	set    model.SetName
	filter SetFilter
	needle []byte
	count  int
	lo, hi string

	// The position: the last member read, its score, and how many members
	// of that score the walk read up to and including it (tie).
	started   bool
	lastScore float64
	lastText  string
	last      []byte
	tie       int

	// ahead: a call may be in flight while the caller works (ReadAhead);
	// sent: one is, asking for asked members.
	ahead bool
	sent  bool
	asked int
	// reuse: a step returns its jobs in sel and their fields in fields,
	// the memory of the step before (Reuse).
	reuse  bool
	sel    []model.SetJob
	fields []model.JobFields
	// bulk is the connection whose raw side reads the call in flight, into
	// arena (nil: redigo reads it).
	bulk  *cancelConn
	arena bulkArena

	seed maphash.Seed
	seen map[uint64]struct{}
	// got is the last reply, members and scores (read).
	got  [][]byte
	prog SetScanProgress
}

// NewRangeScan starts a walk of the scores lo to hi (as ZRANGEBYSCORE takes
// them: "-inf", "+inf", a number, "(" for an open bound).
func NewRangeScan(keys Keys, set model.SetName, f SetFilter, lo, hi string, count int) *RangeScan {
	if count <= 0 {
		count = DefaultSetScanCount
	}
	return &RangeScan{key: SetKey(keys, set), set: set, filter: f, needle: f.needle(), count: count, lo: lo, hi: hi,
		seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
}

// maxSeenHint bounds the members a walk makes room for in its map of the
// members read before it reads them: a range of millions grows it as it
// goes.
const maxSeenHint = 1 << 16

// ReadAhead sends each call as soon as the reply before it says where the
// walk got to, before its members are parsed, so that Redis reads the next
// members while this process parses these. The caller must then step the
// walk to its end or to an error (after which nothing is in flight)
// before it uses the connection for anything else.
func (s *RangeScan) ReadAhead() { s.ahead = true }

// Reuse makes each step return its jobs in the memory of the step before:
// a bulk plan that keeps only the members' bytes of a million jobs made
// garbage of a slice entry and the decoded fields of each.
func (s *RangeScan) Reuse() { s.reuse = true }

// Progress is how far the walk has got; Size is the members in the range
// when it started (ZCOUNT).
func (s *RangeScan) Progress() SetScanProgress { return s.prog }

// Step reads the next members of the range.
func (s *RangeScan) Step(ctx context.Context, c redis.Conn) ([]model.SetJob, error) {
	if s.prog.Done {
		return nil, nil
	}
	if !s.started {
		n, err := redis.Int64(redis.DoContext(c, ctx, "ZCOUNT", s.key, s.lo, s.hi))
		if err != nil {
			s.prog.Done = true
			return nil, fmt.Errorf("scan %s: %w", s.key, err)
		}
		s.prog.Size = n
		// Room for the range's members at once, up to a bound: grown
		// from empty, the map was rebuilt again and again as the walk
		// went (a tenth of the walk's CPU at 10,000 members).
		s.seen = make(map[uint64]struct{}, min(n, maxSeenHint))
	}
	if !s.sent {
		if err := s.send(c, false); err != nil {
			s.prog.Done = true
			return nil, fmt.Errorf("scan %s: %w", s.key, err)
		}
	}
	got, asked, err := s.receive(ctx, c)
	if err == nil && s.started && !s.startsAtPosition(got) {
		if err = s.send(c, true); err == nil {
			got, asked, err = s.receive(ctx, c)
			s.recount(got)
		}
	}
	if err != nil {
		s.prog.Done = true
		return nil, fmt.Errorf("scan %s: %w", s.key, err)
	}
	s.prog.Calls++
	if len(got)/2 < asked {
		s.prog.Done = true
	}
	// The position first: the members after it, and the member and score
	// the walk gets to with them.
	from, err := s.moveOver(got)
	if err != nil {
		s.prog.Done = true
		return nil, err
	}
	s.started = true
	if s.ahead && !s.prog.Done {
		// The next call goes now; these members are parsed while Redis
		// reads it.
		if err := s.send(c, false); err != nil {
			s.prog.Done = true
			return nil, fmt.Errorf("scan %s: %w", s.key, err)
		}
	}
	// Without a needle most members read are kept: room for all of them
	// at once, instead of copying the jobs again as the slice grows.
	var sel []model.SetJob
	switch {
	case s.reuse:
		clear(s.sel)
		sel = slices.Grow(s.sel[:0], len(got)/2-from)
		clear(s.fields)
		s.fields = slices.Grow(s.fields[:0], len(got)/2-from)
	case s.needle == nil:
		sel = make([]model.SetJob, 0, len(got)/2-from)
	}
	// The scores' text in one string: a string each was a third of the
	// walk's allocations.
	var text strings.Builder
	if s.needle == nil {
		n := 0
		for i := 2*from + 1; i < len(got); i += 2 {
			n += len(got[i])
		}
		text.Grow(n)
	}
	for i := 2 * from; i+1 < len(got); i += 2 {
		m := got[i]
		s.prog.Seen++
		if s.needle != nil && !holds(m, s.needle) {
			continue
		}
		at := text.Len()
		text.Write(got[i+1])
		var sj model.SetJob
		if s.reuse {
			s.fields = append(s.fields, model.JobFields{})
			sj = model.ParseSetJobInto(s.set, m, text.String()[at:], &s.fields[len(s.fields)-1])
		} else {
			sj = model.ParseSetJob(s.set, m, text.String()[at:])
		}
		if !s.filter.Match(sj) || !s.filter.Query.MatchSetJob(sj) {
			continue
		}
		h := maphash.Bytes(s.seed, m)
		if _, dup := s.seen[h]; dup {
			continue
		}
		s.seen[h] = struct{}{}
		sel = append(sel, sj)
	}
	s.prog.Matched += int64(len(sel))
	if s.reuse {
		s.sel = sel
	}
	if 4*len(sel) < len(got)/2 {
		// Few kept: they take copies of their bytes, and the next step
		// reads into the memory of this one, so that a walk that keeps
		// one member in a thousand holds no more than those.
		for i := range sel {
			// Read again from the copy: the decoded args are a slice
			// of the bytes.
			sj := &sel[i]
			raw := bytes.Clone(sj.Raw)
			if sj.Job != nil {
				*sj = model.ParseSetJobInto(s.set, raw, sj.ScoreText, sj.Job)
			} else {
				*sj = model.ParseSetJob(s.set, raw, sj.ScoreText)
			}
		}
		s.last = bytes.Clone(s.last)
		s.arena.reset()
	} else {
		s.arena.hold()
	}
	return sel, nil
}

// moveOver moves the walk's position over the members of a reply that lie
// after it, and returns the index (in members) of the first of them.
func (s *RangeScan) moveOver(got [][]byte) (int, error) {
	from := -1
	for i := 0; i+1 < len(got); i += 2 {
		score, perr := strconv.ParseFloat(string(got[i+1]), 64)
		if perr != nil {
			return 0, fmt.Errorf("scan %s: score %q is not a number", s.key, got[i+1])
		}
		if from < 0 && s.started && !s.after(score, got[i]) {
			continue
		}
		if from < 0 {
			from = i / 2
		}
		s.advance(score, got[i])
	}
	if from < 0 {
		return len(got) / 2, nil
	}
	if n := len(got); n >= 2 {
		s.lastText = string(got[n-1])
	}
	return from, nil
}

// send sends one ZRANGEBYSCORE from the walk's position; again starts at
// the first member of the position's score.
func (s *RangeScan) send(c redis.Conn, again bool) error {
	lo, off, n := s.lo, 0, s.count
	if s.started {
		lo = s.lastText
		off = s.tie - 1
		if again {
			off, n = 0, s.tie+s.count
		}
	}
	if bc := bulkConnOf(c); bc != nil {
		ok, err := bc.sendBulk("ZRANGEBYSCORE", s.key, lo, s.hi, "WITHSCORES", "LIMIT", off, n)
		if err != nil {
			return err
		}
		if ok {
			s.sent, s.asked, s.bulk = true, n, bc
			return nil
		}
	}
	if err := c.Send("ZRANGEBYSCORE", s.key, lo, s.hi, "WITHSCORES", "LIMIT", off, n); err != nil {
		return err
	}
	if err := c.Flush(); err != nil {
		return err
	}
	s.sent, s.asked = true, n
	return nil
}

// receive reads the reply of the call sent, its members and scores, into a
// slice the walk keeps for the next step (what Step keeps of them are the
// members themselves), and the members it asked for.
func (s *RangeScan) receive(ctx context.Context, c redis.Conn) ([][]byte, int, error) {
	s.sent = false
	if bc := s.bulk; bc != nil {
		s.bulk = nil
		got, err := bc.receiveBulk(ctx, &s.arena, s.got[:0])
		if err != nil {
			return nil, s.asked, err
		}
		s.got = got
		return got, s.asked, nil
	}
	vals, err := redis.Values(redis.ReceiveContext(c, ctx))
	if err != nil {
		return nil, s.asked, err
	}
	s.got = slices.Grow(s.got[:0], len(vals))
	for _, v := range vals {
		b, ok := v.([]byte)
		if !ok {
			return nil, s.asked, fmt.Errorf("unexpected element %T in the reply", v)
		}
		s.got = append(s.got, b)
	}
	return s.got, s.asked, nil
}

// startsAtPosition reports whether a reply starts at or before the member
// the walk got to, so that none between was skipped.
func (s *RangeScan) startsAtPosition(got [][]byte) bool {
	if len(got) < 2 {
		return s.tie <= 1
	}
	score, err := strconv.ParseFloat(string(got[1]), 64)
	if err != nil {
		return true // reported by Step
	}
	return !s.after(score, got[0])
}

// after reports whether a member lies after the walk's position.
func (s *RangeScan) after(score float64, m []byte) bool {
	if score != s.lastScore {
		return score > s.lastScore
	}
	return bytes.Compare(m, s.last) > 0
}

// advance moves the position to a member read (moveOver sets the text of
// its score).
func (s *RangeScan) advance(score float64, m []byte) {
	if s.last != nil && score == s.lastScore {
		s.tie++
	} else {
		s.tie = 1
	}
	s.lastScore, s.last = score, m
}

// recount sets tie from a reply that starts at the first member of the
// position's score: the members of that score up to the position.
func (s *RangeScan) recount(got [][]byte) {
	s.tie = 0
	for i := 0; i+1 < len(got); i += 2 {
		score, err := strconv.ParseFloat(string(got[i+1]), 64)
		if err != nil || s.after(score, got[i]) {
			break
		}
		if score == s.lastScore {
			s.tie++
		}
	}
}
