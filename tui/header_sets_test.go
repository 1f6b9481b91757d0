package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// The header shows the job set sizes after the counts while they fit (the
// names of the other views go first); narrower, the counts take their
// compact form, and then the set sizes move beside the views' names or
// onto a line of their own: a dead pool's count never pushes them out. No
// line is ever wider than the screen.
func TestGoldenHeaderSetSizes(t *testing.T) {
	st := newStyles(asciiRenderer(), defaultTheme())
	healthy := &model.Snapshot{Namespace: "work", RedisTime: fixedNow,
		Pools:    []model.Pool{{ID: "p1", Status: model.StatusAlive}, {ID: "p2", Status: model.StatusAlive}},
		JobTypes: []model.JobType{{Name: "email"}},
		Sets:     model.SetCounts{Retry: 3, Scheduled: 1, Dead: 11024}}
	busy := fixture()
	model.Analyze(busy, model.DefaultDeadAfter)
	busy.Sets = healthy.Sets
	header := func(snap *model.Snapshot, width int) string {
		return renderHeader(headerData{address: "redis.internal:6379", namespace: "work", snap: snap,
			counts: countSnapshot(snap), fetchedAt: fixedNow,
			tabs: []view{poolsView{}, jobTypesView{}, orphansView{}}}, fixedNow, width, st)
	}
	var out strings.Builder
	for _, tc := range []struct {
		name     string
		snap     *model.Snapshot
		width    int
		wantSets bool
	}{
		{"healthy", healthy, 140, true},
		{"healthy", healthy, 100, true},
		{"healthy", healthy, 80, true},
		{"healthy", healthy, 60, true},
		{"busy", busy, 140, true},
		{"busy", busy, 120, true},
		{"busy", busy, 100, true},
		{"busy", busy, 80, true},
		{"busy", busy, 60, true},
		{"busy", busy, 40, true},
	} {
		h := header(tc.snap, tc.width)
		fmt.Fprintf(&out, "%s at %d:\n%s\n\n", tc.name, tc.width, h)
		for i, l := range strings.Split(h, "\n") {
			if lineWidth(l) > tc.width {
				t.Errorf("%s at %d: line %d is %d wide: %q", tc.name, tc.width, i, lineWidth(l), l)
			}
		}
		if got := strings.Contains(h, "retry 3 · sched 1 · dead jobs 11,024"); got != tc.wantSets {
			t.Errorf("%s at %d: set sizes shown %v, want %v:\n%s", tc.name, tc.width, got, tc.wantSets, h)
		}
		if !strings.Contains(h, countsPrefix(tc.snap)) {
			t.Errorf("%s at %d: the counts were cut:\n%s", tc.name, tc.width, h)
		}
	}
	golden.RequireEqual(t, []byte(out.String()))
}

// countsPrefix is the start of the header's counts, full or compact.
func countsPrefix(s *model.Snapshot) string {
	return plural(len(s.Pools), "pool", "pools") + " "
}

func TestSetSizes(t *testing.T) {
	for _, tc := range []struct {
		c    model.SetCounts
		want string
	}{
		{model.SetCounts{}, ""},
		{model.SetCounts{Dead: 2}, "dead jobs 2"},
		{model.SetCounts{Retry: 1500, Scheduled: 7}, "retry 1,500 · sched 7"},
		{model.SetCounts{Retry: 3, Scheduled: 1, Dead: 11024}, "retry 3 · sched 1 · dead jobs 11,024"},
	} {
		if got := setSizes(tc.c); got != tc.want {
			t.Errorf("setSizes(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 11024: "11,024", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}
