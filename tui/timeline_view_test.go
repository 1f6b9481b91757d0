package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// fakeTimeline is the window of the fixture's clock with a deploy an hour
// ago followed by a burst of deaths, failures retrying since, and a pool
// that beat last 40 minutes ago; it records the windows asked for.
type fakeTimeline struct {
	mu    sync.Mutex
	asked [][2]time.Duration
}

func (f *fakeTimeline) windows() [][2]time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][2]time.Duration(nil), f.asked...)
}

func (f *fakeTimeline) Timeline(_ context.Context, since, bucket time.Duration) (*model.Timeline, error) {
	f.mu.Lock()
	f.asked = append(f.asked, [2]time.Duration{since, bucket})
	f.mu.Unlock()
	now := fixedNow.Add(-2 * time.Second)
	tl := model.NewTimeline(now, since, bucket)
	deploy := now.Add(-time.Hour).Unix()
	tl.Starts = []model.StartMarker{{Host: "worker-a", StartedAt: deploy, Pools: 3}, {Host: "worker-b\x1b[31m", StartedAt: deploy + 20, Pools: 1}}
	tl.LastBeats = []model.BeatMarker{{PoolID: "aaaabbbbccccddddeeeeffff", Host: "worker-z", HeartbeatAt: now.Add(-40 * time.Minute).Unix()}}
	for i := range tl.Buckets {
		b := &tl.Buckets[i]
		age := now.Unix() - b.Start
		switch {
		case age <= 3600 && age > 1800:
			n := int(3600-age)/60 + 4
			b.Deaths, b.Retrying = n, 2
			b.ByJob["send_email"] = n
			b.ByJob["report"] = 2
			b.ByError["dial tcp N.N.N.N:N: i/o timeout"] = n - 1
			b.ByError["smtp: 451 temporary failure\x1b[2J"] = 3
		case age <= 1800:
			b.Retrying = 1
			b.ByJob["report"] = 1
			b.ByError["report: template missing"] = 1
		}
	}
	return tl, nil
}

func timelineOf(t *testing.T, m Model) timelineView {
	t.Helper()
	v, ok := m.top().(timelineView)
	if !ok {
		t.Fatalf("the view on top is %T, not the timeline", m.top())
	}
	return v
}

// :timeline 6h opens the last 6 hours in 5-minute buckets, the cursor on
// the last (it has a failure);
// h and l move it, the bucket's errors follow it, and enter gives the
// command that lists the bucket's jobs in the status line.
func TestTimelineKeys(t *testing.T) {
	tl := &fakeTimeline{}
	m := newTest(t, explainOptions(&fakeExplainer{}, tl), 100, 30)
	m = typeLine(t, m, "timeline 6h", "enter")
	v := timelineOf(t, m)
	if got := tl.windows(); len(got) != 1 || got[0] != [2]time.Duration{6 * time.Hour, 5 * time.Minute} {
		t.Fatalf(":timeline 6h read the windows %v", got)
	}
	if n := len(v.buckets()); v.cursor != n-1 {
		t.Errorf("the cursor is on bucket %d of %d", v.cursor, n)
	}
	view := m.View()
	for _, want := range []string{"15:00–15:05 UTC: 0 dead, 1 retrying", "report: template missing", "█", "^", "x"} {
		if !strings.Contains(view, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, view)
		}
	}
	// 14:00 (the deploy's bucket): the markers and the burst's errors.
	for i := 0; i < 12; i++ {
		m = press(t, m, "h")
	}
	view = m.View()
	for _, want := range []string{"14:00–14:05 UTC: 4 dead, 2 retrying", "^ 3 pools started 14:00:00 on worker-a", "^ 1 pool started 14:00:20 on worker-b",
		"jobs: send_email 4, report 2", "3  dial tcp N.N.N.N:N: i/o timeout", "3  smtp: 451 temporary failure"} {
		if !strings.Contains(view, want) {
			t.Errorf("the deploy's bucket lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "\x1b[2J") || strings.Contains(view, "\x1b[31m") {
		t.Errorf("raw bytes from Redis reached the screen")
	}
	m = press(t, m, "enter")
	want := "workq-tui --redis r:6379 jobs dead --where 'since:2026-11-29T14:00:00Z until:2026-11-29T14:04:59Z' lists this bucket's jobs (jobs retry for those retrying)"
	if !strings.Contains(statusOf(m), want) {
		t.Errorf("enter on the bucket: status %q, want it to hold %q", statusOf(m), want)
	}
	m = press(t, m, "g")
	if v := timelineOf(t, m); v.cursor != 0 {
		t.Errorf("g put the cursor on bucket %d", v.cursor)
	}
	if m = press(t, m, "enter"); statusOf(m) != "no failure in this bucket" {
		t.Errorf("enter on an empty bucket: status %q", statusOf(m))
	}
	m = press(t, m, "G")
	if v := timelineOf(t, m); v.cursor != len(v.buckets())-1 {
		t.Errorf("G put the cursor on bucket %d of %d", v.cursor, len(v.buckets()))
	}
	for i := 0; i < 11; i++ {
		m = drive(t, m, tea.KeyMsg{Type: tea.KeyLeft})
	}
	m = press(t, m, "r")
	v = timelineOf(t, m)
	if got := tl.windows(); len(got) != 2 {
		t.Errorf("r read %d windows in all, want 2", len(got))
	}
	if b := v.buckets()[v.cursor]; time.Unix(b.Start, 0).UTC().Format("15:04") != "14:05" {
		t.Errorf("after r the cursor is on %s", time.Unix(b.Start, 0).UTC())
	}
}

// :timeline 1h reads the last hour in 1-minute buckets; a bad window is
// one line; without the offer T and :timeline say so; T works read-only.
func TestTimelineCommand(t *testing.T) {
	tl := &fakeTimeline{}
	o := explainOptions(&fakeExplainer{}, tl)
	o.ReadOnly = true
	m := newTest(t, o, 100, 30)
	m = typeLine(t, m, "timeline 1h", "enter")
	timelineOf(t, m)
	if got := tl.windows(); len(got) != 1 || got[0] != [2]time.Duration{time.Hour, time.Minute} {
		t.Errorf(":timeline 1h read %v", got)
	}
	m = typeLine(t, m, "timeline 24h", "enter")
	if got := tl.windows(); len(got) != 2 || got[1] != [2]time.Duration{24 * time.Hour, 30 * time.Minute} || openDepth(t, m) != 1 {
		t.Errorf(":timeline 24h on the timeline read %v, %d views open", got, openDepth(t, m))
	}
	m = typeLine(t, m, "timeline yesterday", "enter")
	if !strings.Contains(statusOf(m), `"yesterday" is not a window`) {
		t.Errorf(":timeline yesterday: status %q", statusOf(m))
	}

	o, _ = testOptions(staticSource(fixture()))
	m = newTest(t, o, 100, 30)
	m = press(t, m, "T")
	if m.opened() || statusOf(m) != "the timeline is not available here" {
		t.Errorf("T without a timeline: opened %v, status %q", m.opened(), statusOf(m))
	}
	m = typeLine(t, m, "timeline", "enter")
	if m.opened() || statusOf(m) != "the timeline is not available here" {
		t.Errorf(":timeline without a timeline: status %q", statusOf(m))
	}
}

func TestTimelineBucket(t *testing.T) {
	for _, tc := range []struct{ since, want time.Duration }{
		{10 * time.Minute, time.Minute}, {time.Hour, time.Minute}, {6 * time.Hour, 5 * time.Minute},
		{24 * time.Hour, 30 * time.Minute}, {72 * time.Hour, time.Hour}, {7 * 24 * time.Hour, 3 * time.Hour},
	} {
		if got := timelineBucket(tc.since); got != tc.want {
			t.Errorf("timelineBucket(%s) = %s, want %s", tc.since, got, tc.want)
		}
	}
}

func TestGoldenTimeline(t *testing.T) {
	view := runProgram(t, explainOptions(&fakeExplainer{}, &fakeTimeline{}), 80, 24,
		append([]any{waitText("worker-a"), keyMsg(":"), keyMsg("timeline 6h"), keyMsg("enter"), waitText("retrying")}, append(repeatKey("h", 12), waitText("14:00–14:05"))...)...)
	checkScreen(t, view, 80, 24)
	golden.RequireEqual(t, []byte(view))
}

func repeatKey(k string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = keyMsg(k)
	}
	return out
}

// At every size the chart is exactly the body's height and no line is
// wider than the body, the cursor's column shown.
func TestTimelineSizes(t *testing.T) {
	tl, _ := (&fakeTimeline{}).Timeline(context.Background(), 6*time.Hour, 5*time.Minute)
	st := newStyles(asciiRenderer(), defaultTheme())
	for _, w := range []int{20, 45, 80, 200} {
		for _, h := range []int{5, 14, 40} {
			v := timelineView{km: defaultKeyMap(), since: 6 * time.Hour, bucket: 5 * time.Minute, cursor: -1}.setSize(w, h)
			v, _ = v.update(timelineMsg{tl: tl})
			for _, k := range []string{"h", "h", "h"} {
				v, _ = v.update(keyMsg(k))
			}
			out := v.render(renderContext{st: st, now: fixedNow})
			lines := strings.Split(out, "\n")
			if len(lines) != h {
				t.Errorf("%dx%d: %d lines", w, h, len(lines))
			}
			for i, l := range lines {
				if lineWidth(l) > w {
					t.Errorf("%dx%d: line %d is %d wide: %q", w, h, i, lineWidth(l), l)
				}
			}
			if h >= 14 && !strings.Contains(out, "▲") {
				t.Errorf("%dx%d: no cursor:\n%s", w, h, out)
			}
		}
	}
}

// TestTimelineEnterListsTheBucketsJobs: with a Jobs view, enter on a
// bucket opens it on the dead set filtered to the bucket through the query
// language (since:/until:), from where A and R requeue them.
func TestTimelineEnterListsTheBucketsJobs(t *testing.T) {
	f := deadFixture()
	o, _ := setsOptions(f)
	o.Reads.Sets, o.Reads.SetScan, o.Reads.Timeline = f, f, &fakeTimeline{}
	m := newTest(t, o, 100, 30)
	m = typeLine(t, m, "timeline 6h", "enter")
	for i := 0; i < 12; i++ {
		m = press(t, m, "h")
	}
	m = drive(t, m, keyMsg("enter"))
	v := jobsView(t, m)
	if !m.setsFocused() || v.set != model.SetDead {
		t.Fatalf("enter on a bucket: focused %v, set %s", m.setsFocused(), v.set)
	}
	want := "since:2026-11-29T14:00:00Z until:2026-11-29T14:04:59Z"
	if v.jobFilter != want {
		t.Fatalf("the Jobs view's query is %q, want %q", v.jobFilter, want)
	}
	if view := m.View(); !strings.Contains(view, "where since:2026-11-29T14:00:00Z") || !strings.Contains(view, "filter: "+want) || !strings.Contains(view, "se00") {
		t.Errorf("the query is not on screen:\n%s", view)
	}
}

// T fits the window to where the failures are: it reads the default
// window, then the fitted one, says so, and puts the cursor on the last
// bucket with a failure.
func TestTimelineFitsOnT(t *testing.T) {
	tl := &fakeTimeline{}
	m := newTest(t, explainOptions(&fakeExplainer{}, tl), 100, 30)
	m = press(t, m, "T")
	got := tl.windows()
	if len(got) != 2 || got[0] != [2]time.Duration{6 * time.Hour, 5 * time.Minute} || got[1][0] >= 6*time.Hour || got[1][1] >= 5*time.Minute {
		t.Fatalf("T read the windows %v, want the default then a fitted one", got)
	}
	v := timelineOf(t, m)
	if v.cursor != v.tl.LastFailure() || !strings.Contains(m.View(), "fitted to the failures") {
		t.Errorf("cursor %d, last failure %d:\n%s", v.cursor, v.tl.LastFailure(), m.View())
	}
}
