package redisq

// This file owns what selects members of a job set and what walks the
// whole set for them (sets_walk.go): a filtered page and a summary by job
// type and error, one call per step, optionally paced like the orphan scan.

import (
	"context"
	"fmt"
	"slices"
	"sort"
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
	// Query, when not nil, is a query every member selected matches. Its
	// time terms are matched by the walk that reads scores (RangeScan).
	Query *model.Query
}

// Empty reports whether the filter selects every member.
func (f SetFilter) Empty() bool { return f.Job == "" && f.Error == "" && f.ID == "" && f.Query.Empty() }

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
	return f.Query.MatchFields(sj.Job)
}

// needle is text every member the filter selects holds, so that a walk
// parses only the members that hold it: `"<id>"` for a job id, the text of
// an args: term (raw bytes of the arguments), the value of an
// args.PATH:VALUE term (as a string's text or a number's digits),
// `"<name>"` for a job name; nil when there is none (an error is matched
// ignoring case), or when the text holds a character some JSON encoder may
// write escaped (gocraft/work's two encoders, Go's and Lua's cjson, write
// every other character as itself). It only narrows: Match decides.
func (f SetFilter) needle() []byte {
	return needleOf(f.ID, f.Job, f.Query)
}

// needleOf is the needle of an id, a job name and a query (see
// SetFilter.needle), the most selective first.
func needleOf(id, job string, q *model.Query) []byte {
	if id == "" {
		id = q.ID()
	}
	if job == "" {
		job = q.JobName()
	}
	if id != "" && literalInJSON(id) {
		return []byte(`"` + id + `"`)
	}
	if q != nil {
		for _, a := range q.Args {
			if a != "" {
				return []byte(a)
			}
		}
		for _, p := range q.Paths {
			if p.Value != "" && literalInJSON(p.Value) {
				return []byte(p.Value)
			}
		}
	}
	if job != "" && literalInJSON(job) {
		return []byte(`"` + job + `"`)
	}
	return nil
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

// ScanOptions drive a whole scan.
type ScanOptions struct {
	// Count is the members each call reads (DefaultSetScanCount when not
	// positive).
	Count int
	// Paced makes the scan wait after each call model.ScanPause(its duration), as
	// the screen's orphan scan does, so that Redis stays free for others.
	Paced bool
	// Progress, when not nil, is called after every call.
	Progress func(SetScanProgress)
}

// run steps a scan to its end, handing each step's members to each.
func (o ScanOptions) run(ctx context.Context, c redis.Conn, s SetWalk, key string, each func([]model.SetJob)) error {
	for !s.Progress().Done {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scan %s: %w", key, err)
		}
		start := time.Now()
		jobs, err := s.Step(ctx, c)
		if err != nil {
			return err
		}
		took := time.Since(start)
		each(jobs)
		if o.Progress != nil {
			o.Progress(s.Progress())
		}
		if o.Paced && !s.Progress().Done {
			t := time.NewTimer(model.ScanPause(took))
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("scan %s: %w", key, ctx.Err())
			case <-t.C:
			}
		}
	}
	return nil
}

// FilterSetPage walks a set for the members a filter selects and returns
// one page of them in the page's order; Total is how many matched. It
// holds at most about twice Offset+Limit members at a time, and reads the
// scores of the page's members only.
func FilterSetPage(ctx context.Context, c redis.Conn, keys Keys, set model.SetName, f SetFilter, o PageOptions, so ScanOptions) (SetPage, error) {
	page := SetPage{Set: set, Offset: max(o.Offset, 0)}
	want := page.Offset + o.limit()
	newest := o.newestFirst(set)
	// The walk returns members in the set's order: a page from the start
	// is its first matches, a page from the end its last ones.
	var kept []model.SetJob
	s := NewSetWalk(keys, set, f, so.Count)
	err := so.run(ctx, c, s, SetKey(keys, set), func(jobs []model.SetJob) {
		for _, sj := range jobs {
			switch {
			case !newest && len(kept) < want:
				kept = append(kept, sj)
			case newest:
				kept = append(kept, sj)
				if len(kept) >= 2*want+64 {
					kept = slices.Clone(kept[len(kept)-want:])
				}
			}
		}
	})
	if err != nil {
		return page, err
	}
	if len(kept) > want {
		kept = kept[len(kept)-want:]
	}
	if kept, err = ReadScores(ctx, c, keys, set, kept); err != nil {
		return page, err
	}
	less := naturalLess(newest)
	sort.Slice(kept, func(i, j int) bool { return less(kept[i], kept[j]) })
	page.Total = s.Progress().Matched
	page.Jobs = []model.SetJob{}
	if page.Offset < len(kept) {
		page.Jobs = kept[page.Offset:]
	}
	return page, nil
}

// SummarizeSet counts the members a filter selects by job type and by
// normalised error (model.NormalizeError), scanning the whole set.
func SummarizeSet(ctx context.Context, c redis.Conn, keys Keys, set model.SetName, f SetFilter, so ScanOptions) (*model.SetSummary, error) {
	sum := model.NewSetSummary(set)
	s := NewSetWalk(keys, set, f, so.Count)
	err := so.run(ctx, c, s, SetKey(keys, set), func(jobs []model.SetJob) {
		for _, sj := range jobs {
			sum.Add(sj)
		}
	})
	return sum, err
}
