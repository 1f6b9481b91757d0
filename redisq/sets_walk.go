package redisq

// This file owns the walk of a job set: ZRANGE by rank in score order, each
// call re-reading the last member of the one before so that a set that
// changed under the walk is noticed and the walk resumes from a member it
// has seen; and the scores of the members a walk returned.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// SetScan walks one job set by rank, count members a call, in score order
// (ties by member bytes), returning the members a filter selects, each
// once, without their scores (ReadScores reads those of the members kept).
//
// Each ZRANGE call after the first starts a little before the rank where
// the previous call's last member was read (walkSlack members), and the
// walk looks for that member in the reply. Found, the members after it
// follow it in the set's order now: the two calls read consecutive members
// of one order, however many members were added or removed before it in
// between, as long as it did not move down by more than walkSlack. Not
// found (it moved further, or left the set), the walk drops the calls it
// sent ahead, looks up with ZRANK where the newest member it read that is
// still in the set now is, and resumes there. So every member present for the
// whole walk is returned, as with ZSCAN, at a fraction of ZSCAN's cost
// inside Redis: ZRANGE without scores copies members and formats no
// number. Members added or removed during the walk may or may not be
// returned. They come in the set's order but for those found again after
// the walk looked its position up.
//
// It keeps an 8-byte hash per member returned, so a member re-read after
// the walk resumed is returned once. Used by one goroutine at a time.
type SetScan struct {
	key    string
	set    model.SetName
	filter SetFilter
	needle []byte
	count  int
	// depth is how many ZRANGE calls may be in flight: 1, or 2 after
	// ReadAhead.
	depth int
	// carded: ZCARD was sent.
	carded bool

	// next is the rank where the next ZRANGE expects last, the member the
	// walk got to (nil at the start of the set).
	next int64
	last []byte
	// chunk is the last call's members; ends the last member of each call
	// before it, newest last: where the walk may resume.
	chunk, ends [][]byte
	// gen counts the times the walk dropped its calls in flight; a ZRANGE
	// reply of an older generation is read and dropped.
	gen int
	// slack is how many members before the expected rank a ZRANGE reads
	// again: walkSlack, doubled each time the walk looks its position up
	// and then does not find it where it looked; lost counts those times
	// in a row.
	slack int64
	lost  int
	// ended: a call came back short; anchoring: a ZRANK lookup is in
	// flight. Neither sends another ZRANGE.
	ended, anchoring bool
	// queue is every call sent and not read yet, in the order sent.
	queue []walkCall

	seed maphash.Seed
	seen map[uint64]struct{}
	prog SetScanProgress
}

// walkCall is one call in flight and what its reply is for.
type walkCall struct {
	kind walkKind
	gen  int
	// asked is the members a ZRANGE asked for.
	asked int
	// replies is how many replies the call takes.
	replies int
	// cands are the members a ZRANK lookup asked about, in order of
	// preference; more are those still to ask about after them.
	cands, more [][]byte
}

type walkKind int

const (
	callCard walkKind = iota
	callRange
	callRank
)

// walkSlack is how many members before the expected rank each ZRANGE
// re-reads: members removed before the walk's position between two calls,
// up to this many, do not make the walk look its position up.
const walkSlack = 32

// maxSlack bounds how far back a ZRANGE reads again; maxLost is how many
// lookups in a row a walk makes before it gives up with ErrSetChurn.
const (
	maxSlack = 1 << 16
	maxLost  = 20
)

// ErrSetChurn is a walk that could not keep its place: members were added
// or removed before its position faster than it could look it up.
var ErrSetChurn = errors.New("the set changed faster than it could be read; run again when it is quieter")

// maxEnds bounds the members a walk keeps to resume from.
const maxEnds = 256

// rankGroup is how many members one ZRANK lookup asks about.
const rankGroup = 64

// DefaultSetScanCount is the members each ZRANGE call of a walk reads.
const DefaultSetScanCount = 1000

// SetScanProgress is how far a set scan has got.
type SetScanProgress struct {
	// Calls is the number of ZRANGE replies read so far; Seen the members
	// they read (a member read again after the walk resumed counts again),
	// Matched those the filter selected, each counted once.
	Calls   int
	Seen    int64
	Matched int64
	// Lookups counts the ZRANK look-ups (of up to rankGroup members each)
	// the walk made because the set changed before its position.
	Lookups int
	// Size is the set's size when the scan started (ZCARD).
	Size int64
	Done bool
}

// NewSetScan starts a walk of a set; count is the members a call reads
// (DefaultSetScanCount when not positive).
func NewSetScan(keys Keys, set model.SetName, filter SetFilter, count int) *SetScan {
	if count <= 0 {
		count = DefaultSetScanCount
	}
	return &SetScan{key: SetKey(keys, set), set: set, filter: filter, needle: filter.needle(), count: count, depth: 1, slack: walkSlack,
		seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
}

// ReadAhead keeps a second ZRANGE call in flight while the members of one
// are parsed, so that Redis and the caller work at the same time. The
// caller must then either step the walk to its end (or to an error, after
// which Step has read what was in flight) or call Drain before using the
// connection for anything else.
func (s *SetScan) ReadAhead() { s.depth = 2 }

// Reuse does nothing: each step returns jobs of its own.
func (s *SetScan) Reuse() {}

// Progress is how far the walk has got.
func (s *SetScan) Progress() SetScanProgress { return s.prog }

// Drain reads the replies of every call sent and not read yet, so that the
// connection can be used again after a walk stopped midway.
func (s *SetScan) Drain(ctx context.Context, c redis.Conn) error {
	for ; len(s.queue) > 0; s.queue = s.queue[1:] {
		for i := 0; i < max(s.queue[0].replies, 1); i++ {
			if _, err := redis.ReceiveContext(c, ctx); err != nil && !isErrorReply(err) {
				s.queue = nil
				return fmt.Errorf("scan %s: %w", s.key, err)
			}
		}
	}
	return nil
}

// Step reads the reply of at least one call (the first step also reads
// ZCARD) and returns the new members the filter selects; it returns once a
// ZRANGE reply's members are dealt with.
func (s *SetScan) Step(ctx context.Context, c redis.Conn) ([]model.SetJob, error) {
	for !s.prog.Done {
		if err := s.send(c); err != nil {
			return nil, err
		}
		if len(s.queue) == 0 {
			s.prog.Done = true
			break
		}
		call := s.queue[0]
		s.queue = s.queue[1:]
		jobs, done, err := s.receive(ctx, c, call)
		if err != nil {
			// The calls still in flight are read, so that the connection
			// stays in step (an error reply, such as a key of another
			// type, leaves it usable).
			_ = s.Drain(ctx, c)
			s.prog.Done = true
			return nil, fmt.Errorf("scan %s: %w", s.key, err)
		}
		if done {
			return jobs, nil
		}
	}
	return nil, nil
}

// send sends the ZRANGE calls the walk may have in flight, the first time
// after ZCARD.
func (s *SetScan) send(c redis.Conn) error {
	if s.prog.Done || s.ended || s.anchoring {
		return nil
	}
	inFlight := 0
	for _, q := range s.queue {
		if q.kind == callRange && q.gen == s.gen {
			inFlight++
		}
	}
	if inFlight >= s.depth {
		return nil
	}
	if !s.carded {
		s.carded = true
		if err := s.call(c, walkCall{kind: callCard}, "ZCARD", s.key); err != nil {
			return err
		}
	}
	for ; inFlight < s.depth; inFlight++ {
		// The member the walk got to, count new ones after it, and up to
		// walkSlack before it; from the start of the set, count members.
		start := max(s.next-s.slack, 0)
		if s.last == nil {
			start = s.next
		}
		stop := s.next + int64(s.count)
		if s.last == nil && s.next == 0 {
			stop--
		}
		if err := s.call(c, walkCall{kind: callRange, gen: s.gen, asked: int(stop - start + 1)}, "ZRANGE", s.key, start, stop); err != nil {
			return err
		}
		s.next = stop
	}
	return s.flush(c)
}

// call sends one command and records it in the queue.
func (s *SetScan) call(c redis.Conn, w walkCall, cmd string, args ...any) error {
	if err := c.Send(cmd, args...); err != nil {
		return fmt.Errorf("scan %s: %w", s.key, err)
	}
	s.queue = append(s.queue, w)
	return nil
}

func (s *SetScan) flush(c redis.Conn) error {
	if err := c.Flush(); err != nil {
		return fmt.Errorf("scan %s: %w", s.key, err)
	}
	return nil
}

// receive reads the reply of one call. done reports that a ZRANGE reply's
// members are dealt with: jobs are those selected. Its errors are wrapped
// by Step.
func (s *SetScan) receive(ctx context.Context, c redis.Conn, call walkCall) (jobs []model.SetJob, done bool, err error) {
	switch call.kind {
	case callCard:
		n, err := redis.Int64(redis.ReceiveContext(c, ctx))
		if err != nil {
			return nil, false, err
		}
		s.prog.Size = n
		return nil, false, nil
	case callRange:
		members, err := redis.ByteSlices(redis.ReceiveContext(c, ctx))
		if err != nil {
			return nil, false, err
		}
		if call.gen != s.gen {
			return nil, false, nil
		}
		return s.members(c, call, members)
	default:
		return nil, false, s.resume(ctx, c, call)
	}
}

// members deals with one ZRANGE reply: it checks the reply starts where
// the last one ended and selects members.
func (s *SetScan) members(c redis.Conn, call walkCall, got [][]byte) ([]model.SetJob, bool, error) {
	fresh := got
	if s.last != nil {
		at := -1
		for i, m := range got {
			if bytes.Equal(m, s.last) {
				at = i
				break
			}
		}
		if at < 0 {
			// The member the walk got to moved too far, or is gone:
			// drop what was asked ahead and find where to resume.
			s.lost++
			if s.lost > maxLost {
				return nil, false, fmt.Errorf("%w (jobs were added or removed ahead of the read %d times in a row)", ErrSetChurn, maxLost)
			}
			s.slack = min(2*s.slack, maxSlack)
			s.gen++
			return nil, false, s.lookup(c, s.resumeFrom())
		}
		fresh = got[at+1:]
		s.lost, s.slack = 0, walkSlack
	}
	s.prog.Calls++
	s.prog.Seen += int64(len(fresh))
	if len(got) < call.asked {
		s.ended = true
		s.gen++
	}
	if len(got) > 0 {
		if s.last != nil {
			s.ends = append(s.ends, s.last)
			if len(s.ends) > maxEnds {
				s.ends = s.ends[len(s.ends)-maxEnds:]
			}
		}
		s.last = got[len(got)-1]
		s.chunk = got
	}
	var sel []model.SetJob
	for _, m := range fresh {
		if s.needle != nil && !holds(m, s.needle) {
			continue
		}
		sj := model.ParseMember(s.set, m)
		if !s.filter.Match(sj) {
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
	return sel, true, nil
}

// resumeFrom lists the members the walk may resume from, newest first: the
// last call's members from its end, then the last member of each call
// before it.
func (s *SetScan) resumeFrom() [][]byte {
	out := make([][]byte, 0, len(s.chunk)+len(s.ends))
	for i := len(s.chunk) - 1; i >= 0; i-- {
		out = append(out, s.chunk[i])
	}
	for i := len(s.ends) - 1; i >= 0; i-- {
		out = append(out, s.ends[i])
	}
	return out
}

// lookup asks with ZRANK where the first rankGroup of cands are now.
func (s *SetScan) lookup(c redis.Conn, cands [][]byte) error {
	s.anchoring = true
	n := min(len(cands), rankGroup)
	if n == 0 {
		s.restart()
		return nil
	}
	s.prog.Lookups++
	for _, m := range cands[:n] {
		if err := c.Send("ZRANK", s.key, m); err != nil {
			return err
		}
	}
	s.queue = append(s.queue, walkCall{kind: callRank, cands: cands[:n], more: cands[n:], replies: n})
	return c.Flush()
}

// resume reads a ZRANK lookup and resumes the walk at the first member
// still in the set, or asks about the next ones.
func (s *SetScan) resume(ctx context.Context, c redis.Conn, call walkCall) error {
	found, rank := -1, int64(0)
	var firstErr error
	for i := range call.cands {
		v, err := redis.ReceiveContext(c, ctx)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if n, ok := v.(int64); ok && found < 0 {
			found, rank = i, n
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if found < 0 {
		return s.lookup(c, call.more)
	}
	s.anchoring = false
	s.last, s.next = call.cands[found], rank
	return nil
}

// restart walks the set again from its start: no member the walk read is
// in it any more. Members returned before are not returned again.
func (s *SetScan) restart() {
	s.anchoring = false
	s.last, s.next = nil, 0
	s.chunk, s.ends = nil, nil
}

// holds reports whether m holds needle. For a quoted text it looks for the
// text after the opening quote and then checks the quote: a quote is most
// of a JSON member's bytes, and a search that starts from a frequent byte
// stops at every one of them.
func holds(m, needle []byte) bool {
	if len(needle) < 2 || needle[0] != '"' {
		return bytes.Contains(m, needle)
	}
	rest := needle[1:]
	for off := 1; off < len(m); {
		i := bytes.Index(m[off:], rest)
		if i < 0 {
			return false
		}
		if m[off+i-1] == needle[0] {
			return true
		}
		off += i + 1
	}
	return false
}

// scoresPerRoundTrip bounds the ZSCORE calls ReadScores sends at once.
const scoresPerRoundTrip = 1000

// ReadScores gives the members a walk returned their scores (one ZSCORE
// each, pipelined: every Redis version has it) and returns those still in
// the set, in the same order.
func ReadScores(ctx context.Context, c redis.Conn, keys Keys, set model.SetName, jobs []model.SetJob) ([]model.SetJob, error) {
	key := SetKey(keys, set)
	out := jobs[:0:0]
	for len(jobs) > 0 {
		n := min(len(jobs), scoresPerRoundTrip)
		for _, sj := range jobs[:n] {
			if err := c.Send("ZSCORE", key, sj.Raw); err != nil {
				return nil, fmt.Errorf("read scores in %s: %w", key, err)
			}
		}
		if err := c.Flush(); err != nil {
			return nil, fmt.Errorf("read scores in %s: %w", key, err)
		}
		rs := make([]reply, n)
		if err := receiveInto(ctx, c, rs); err != nil {
			return nil, fmt.Errorf("read scores in %s: %w", key, err)
		}
		for i, r := range rs {
			if r.err != nil {
				return nil, fmt.Errorf("read scores in %s: %w", key, r.err)
			}
			text, ok := r.v.([]byte)
			if !ok {
				continue // gone from the set since the walk read it
			}
			sj := jobs[i]
			sj.SetScore(string(text))
			out = append(out, sj)
		}
		jobs = jobs[n:]
	}
	return out, nil
}
