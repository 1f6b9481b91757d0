package tui

import (
	"context"
	"strings"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// The tests fill Options.Reads and Options.Writes with what each needs:
// testOptions polls from a fake source, peeks and reaps with fakes.

// Poll of a fakeSource takes a snapshot whatever the request.
func (f *fakeSource) Poll(ctx context.Context, _ redisq.PollRequest) (*model.Snapshot, error) {
	return f.Snapshot(ctx)
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

// fakeHealth answers every read with h.
type fakeHealth struct{ h *model.RedisHealth }

func (f fakeHealth) Health(context.Context) (*model.RedisHealth, error) { return f.h, nil }

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
