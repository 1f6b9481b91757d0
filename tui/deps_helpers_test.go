package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// The readers of the tests. A reader offers what its type has (see
// offered), so each combination the tests use is a type of its own: the
// base polls and peeks, and each with* adds one offer to it.

// testReader polls from a source and reads the detail's jobs from a peeker.
type testReader struct {
	Poller
	Peeker
}

// pollOnly polls and offers nothing else.
type pollOnly struct{ Poller }

type withScanner struct {
	testReader
	OrphanScanner
}

type withSweeper struct {
	testReader
	Sweeper
}

type withQueue struct {
	testReader
	QueueReader
}

type withFollower struct {
	testReader
	Follower
}

type withSets struct {
	testReader
	JobSetReader
	SetScanner
}

// baseReader is the polls and jobs of the options' reader, whatever it
// offers besides.
func baseReader(o Options) testReader {
	switch r := o.Reader.(type) {
	case testReader:
		return r
	case withScanner:
		return r.testReader
	case withSweeper:
		return r.testReader
	case withQueue:
		return r.testReader
	case withQueueQuery:
		return r.testReader
	case withFollower:
		return r.testReader
	case withSets:
		return r.testReader
	case withHealth:
		return r.testReader
	case withExplain:
	case withSetsFind:
		return r.testReader
	case pollOnly:
		return testReader{Poller: r.Poller, Peeker: fakePeeker{}}
	}
	panic(fmt.Sprintf("baseReader: %T", o.Reader))
}

// Poll of a fakeSource takes a snapshot whatever the request.
func (f *fakeSource) Poll(ctx context.Context, _ redisq.PollRequest) (*model.Snapshot, error) {
	return f.Snapshot(ctx)
}

// The actors of the tests, like the readers: testActor reaps, each with*
// adds writes to it.
type testActor struct{ Reaper }

type withPauser struct {
	testActor
	Pauser
}

type withRepairer struct {
	testActor
	Requeuer
	LockRepairer
}

type withJobs struct {
	testActor
	JobsActor
}

// reaperOf is the options' reaper.
func reaperOf(o Options) Reaper {
	switch a := o.Actor.(type) {
	case testActor:
		return a.Reaper
	case withPauser:
		return a.Reaper
	case withRepairer:
		return a.Reaper
	case withJobs:
		return a.Reaper
	case withEditor:
		return a.Reaper
	}
	panic(fmt.Sprintf("reaperOf: %T", o.Actor))
}

// rebased is the options' reader with the base b, offering what it offered.
func rebased(o Options, b testReader) Reader {
	switch r := o.Reader.(type) {
	case withScanner:
		r.testReader = b
		return r
	case withSweeper:
		r.testReader = b
		return r
	case withQueue:
		r.testReader = b
		return r
	case withFollower:
		r.testReader = b
		return r
	case withSets:
		r.testReader = b
		return r
	case withExplain:
	case withSetsFind:
		r.testReader = b
		return r
	}
	return b
}

// polling is the options with their reader's polls from p.
func polling(o Options, p Poller) Options {
	b := baseReader(o)
	b.Poller = p
	o.Reader = rebased(o, b)
	return o
}

// journalledReaper is a reaper that records its reaps in a journal of the
// given id, as the program's does.
type journalledReaper struct {
	*fakeReaper
	id string
}

func (j journalledReaper) Reap(ctx context.Context, p reaper.Plan, progress reaper.Progress) (reaper.Result, error) {
	res, err := j.fakeReaper.Reap(ctx, p, progress)
	res.Journal = j.id
	return res, err
}

type withHealth struct {
	testReader
	HealthReader
}

// fakeHealth answers every read with h.
type fakeHealth struct{ h *model.RedisHealth }

func (f fakeHealth) Health(context.Context) (*model.RedisHealth, error) { return f.h, nil }

// withExplain offers the explanations, the timeline and the command
// lines.
type withExplain struct {
	testReader
	Explainer
	TimelineReader
	CommandLiner
}

// fakeCommands prefixes command lines with a program and the flags of a
// test Redis, and quotes the words with spaces.
type fakeCommands struct{}

func (fakeCommands) CommandWords(words []string) []string {
	out := []string{"workq-tui", "--redis", "r:6379"}
	for _, w := range words {
		if strings.ContainsAny(w, " '") {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		out = append(out, w)
	}
	return out
}
