package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// TestHeaderWarnsOfARedisSetUpToLoseJobs: with allkeys-lru and AOF off
// after writes the header says so in a line of its own at 80 columns; the
// verdict does not count it; a Redis with noeviction and AOF on gets no
// line.
func TestHeaderWarnsOfARedisSetUpToLoseJobs(t *testing.T) {
	risky := &model.RedisHealth{MaxmemoryPolicy: "allkeys-lru", RDBChangesSinceLastSave: 12, RDBSaves: 0}
	safe := &model.RedisHealth{MaxmemoryPolicy: "noeviction", AOFEnabled: true}
	for _, tc := range []struct {
		name string
		h    *model.RedisHealth
		want bool
	}{{"risky", risky, true}, {"safe", safe, false}} {
		o, _ := testOptions(staticSource(fixture()))
		o.Reads.Health = fakeHealth{tc.h}
		m := newTest(t, o, 80, 24)
		m, _ = deliver(t, m, m.Init())
		view := m.View()
		checkScreen(t, view, 80, 24)
		got := strings.Contains(view, "⚠ Redis may lose jobs: allkeys-lru evicts jobs · changes not on disk")
		if got != tc.want {
			t.Errorf("%s: warning shown %v, want %v:\n%s", tc.name, got, tc.want, view)
		}
		if !strings.Contains(view, "3 problems: 2 dead pools, 1 drift") {
			t.Errorf("%s: the verdict changed:\n%s", tc.name, view)
		}
		if tc.want {
			golden.RequireEqual(t, []byte(view))
		}
	}
}
