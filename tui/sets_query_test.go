package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// typeFilter presses / in the Jobs view, types text and presses enter.
func typeFilter(t *testing.T, m Model, text string) Model {
	t.Helper()
	m = drive(t, m, keyMsg("/"))
	if _, editing := filterEditing(m); !editing {
		t.Fatal("/ did not open the filter")
	}
	// The filter opens on the one applied: ctrl+u clears it.
	return drive(t, m, tea.KeyMsg{Type: tea.KeyCtrlU}, keyMsg(text), keyMsg("enter"))
}

// TestSetsQueryFilter: the Jobs view's / takes a query; a plain word
// matches part of the job name, as every view's filter matches part of
// its rows; a bad query says why in one line and reads nothing.
func TestSetsQueryFilter(t *testing.T) {
	tests := []struct {
		text  string
		total int64
	}{
		{"resize", 12}, // part of a name, as in Job types
		{"email", 30},  // and the other end of one
		{"_", 42},      // every job with a name that has one
		{"job:resize_image", 12},
		{"err:TIMEOUT", 30}, // case-insensitive substring
		{`err~"10\.0\.0\.1\d:"`, 10},
		{"email err:0.0.2", 11}, // every term must match
		{"args.n:3660", 1},
		{"fails>=3 job:send_*", 30},
		{"since:65m", 7}, // 6 deaths 60-65 min ago, 1 five minutes ago
		// Past 2262-04-11T23:47:16Z nanoseconds since 1970 leave an
		// int64; bounds are read in seconds, so nothing died after it.
		{"since:2262-04-11T23:47:17Z", 0},
		{"since:2300-01-01T00:00:00Z", 0},
		{"until:1677-09-21T00:12:43Z", 0},
		{"since:1600-01-01T00:00:00Z", 43}, // every dead member that is a job
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			f := deadFixture()
			m, _ := openJobs(t, f, false, 100, 30)
			m = typeFilter(t, m, tc.text)
			v := jobsView(t, m)
			if v.total != tc.total || v.jobFilter != tc.text {
				t.Fatalf("/%s: total %d (want %d), filter %q, status %q", tc.text, v.total, tc.total, v.jobFilter, statusOf(m))
			}
			for _, sj := range v.page {
				if !f.lastRead().filter.Match(sj) {
					t.Errorf("page holds %q, which the filter does not select", sj.Raw)
				}
			}
			if !strings.Contains(m.View(), "where "+tc.text) {
				t.Errorf("the title line does not show the query")
			}
		})
	}
	t.Run("bad", func(t *testing.T) {
		f := deadFixture()
		m, _ := openJobs(t, f, false, 100, 30)
		m = typeFilter(t, m, "resize")
		reads := len(f.reads)
		for _, bad := range []string{"erorr:x", "err~(", "since:yesterday", "since:-999999h", "since:9999999h", "since:9999-12-31T23:59:59-01:00", "since:1h until:2h"} {
			m = typeFilter(t, m, bad)
			v := jobsView(t, m)
			if !strings.HasPrefix(statusOf(m), "bad query") || strings.Contains(statusOf(m), "\n") {
				t.Errorf("/%s: status %q, want one line of bad query", bad, statusOf(m))
			}
			if len(f.reads) != reads || v.jobFilter != "resize" {
				t.Errorf("/%s: %d reads, filter %q: a bad query must read nothing and keep the filter", bad, len(f.reads)-reads, v.jobFilter)
			}
		}
		if !strings.Contains(statusOf(m), "until:") {
			t.Errorf("until before since: status %q", statusOf(m))
		}
	})
}

// TestSetsFilterMeansTheSame: a word that filters Job types filters Jobs
// the same way: part of the job name, whatever its case.
func TestSetsFilterMeansTheSame(t *testing.T) {
	for _, word := range []string{"resize", "RESIZE", "Resize"} {
		f := deadFixture()
		m, _ := openJobs(t, f, false, 100, 30)
		m = drive(t, m, keys("tab")...) // Pools
		m = drive(t, m, keys("tab")...) // Job types
		m = drive(t, m, keyMsg("/"), keyMsg(word), keyMsg("enter"))
		if !strings.Contains(m.View(), "resize_image") || strings.Contains(m.View(), "send_email") {
			t.Fatalf("Job types /%s:\n%s", word, m.View())
		}
		m = drive(t, m, keys("shift+tab", "shift+tab")...)
		if !m.setsFocused() {
			t.Fatal("not on the Jobs view")
		}
		m = typeFilter(t, m, word)
		if v := jobsView(t, m); v.total != 12 {
			t.Errorf("Jobs /%s: total %d, want the 12 resize_image jobs", word, v.total)
		}
	}
}

// TestSetsMarkAll: A marks every member the query matches, the title line
// counts them, and R plans on all of them through the bulk plan (the
// query's target, not the page's members); y runs it.
func TestSetsMarkAll(t *testing.T) {
	f := deadFixture()
	m, d := openJobs(t, f, false, 100, 30)
	m = typeFilter(t, m, "err:timeout")
	m = drive(t, m, keys("A")...)
	if !strings.Contains(m.View(), "all 30 matching marked") {
		t.Fatalf("A: no count in the title line:\n%s", m.View())
	}
	m = drive(t, m, keys("R")...)
	if !dialogOpen(m) {
		t.Fatalf("R: no dialog; status %q", statusOf(m))
	}
	tg := f.planned[len(f.planned)-1]
	if !tg.All || tg.Query == nil || tg.Query.Text != "err:timeout" || len(tg.Refs) != 0 || tg.Set != model.SetDead {
		t.Fatalf("R planned %+v, want every dead job matching err:timeout", tg)
	}
	if !strings.Contains(dialogTitle(m), "30 jobs") || !strings.Contains(dialogTitle(m), "all matching err:timeout") {
		t.Errorf("dialog title %q", dialogTitle(m))
	}
	m = drive(t, m, keys("y")...)
	if len(f.executed) != 1 || len(f.sets[model.SetDead]) != 15 {
		t.Fatalf("executed %d plans, dead left %d (want 15)", len(f.executed), len(f.sets[model.SetDead]))
	}
	if v := jobsView(t, m); v.markAll || v.total != 0 {
		t.Errorf("after the run: markAll %v total %d", v.markAll, v.total)
	}
	if len(d.audit.entries) != 1 {
		t.Errorf("%d audit lines, want 1", len(d.audit.entries))
	}
	// esc takes the marks away, space marks one member only.
	m = typeFilter(t, m, "resize")
	m = drive(t, m, keys("A", "esc")...)
	if v := jobsView(t, m); v.markAll || v.jobFilter != "resize" {
		t.Errorf("esc: markAll %v filter %q (the marks go first, the filter stays)", v.markAll, v.jobFilter)
	}
}

// TestSetsBulkStop: esc while a bulk action runs stops it between two
// calls: the status says what moved and what is left, nothing else is
// touched, and the same action again finishes it.
func TestSetsBulkStop(t *testing.T) {
	f := deadFixture()
	f.stopAfter = 4
	m, d := openJobs(t, f, false, 100, 30)
	m = typeFilter(t, m, "resize")
	m = drive(t, m, keys("A", "R")...)
	if !dialogOpen(m) {
		t.Fatalf("no dialog; status %q", statusOf(m))
	}
	m, cmd := sendSets(m, keyMsg("y"))
	first := runCmd(cmd) // the first progress: the run waits between calls
	if !actionRunning(m) || len(first) == 0 {
		t.Fatalf("y: running %v, %d messages", actionRunning(m), len(first))
	}
	m, wait := sendSets(m, first[0])
	if !strings.Contains(m.View(), "esc stops") {
		t.Errorf("the progress line does not say that esc stops:\n%s", m.View())
	}
	m, _ = sendSets(m, keyMsg("esc"))
	if !strings.Contains(m.View(), "stopping after the call in flight") {
		t.Errorf("the progress line does not say it stops:\n%s", m.View())
	}
	if !actionRunning(m) || !strings.Contains(statusOf(m), "stopping after the call in flight") {
		t.Fatalf("esc: running %v, status %q", actionRunning(m), statusOf(m))
	}
	m = drive(t, m, runCmd(wait)...)
	if actionRunning(m) || !strings.Contains(statusOf(m), "stopped: 4 of 12 jobs done, 8 left") {
		t.Fatalf("after the stop: running %v, status %q", actionRunning(m), statusOf(m))
	}
	if n := countName(f.sets[model.SetDead], "resize_image"); n != 8 {
		t.Errorf("%d resize_image left in dead, want 8", n)
	}
	if e := d.audit.entries; len(e) != 1 || !strings.Contains(e[0].Result, "stopped") {
		t.Errorf("audit %+v", e)
	}
	f.stopAfter = 0
	m = drive(t, m, keys("A", "R")...)
	if !dialogOpen(m) {
		t.Fatalf("again: no dialog; status %q", statusOf(m))
	}
	drive(t, m, keys("y")...)
	if n := countName(f.sets[model.SetDead], "resize_image"); n != 0 || len(f.sets[model.SetDead]) != 33 {
		t.Errorf("again: %d resize_image left, dead %d (want 0, 33)", n, len(f.sets[model.SetDead]))
	}
}

func countName(jobs []model.SetJob, name string) int {
	n := 0
	for _, sj := range jobs {
		if sj.Job != nil && sj.Job.Name == name {
			n++
		}
	}
	return n
}

// fakeFinder answers every search with places and records the specs.
type fakeFinder struct {
	mu     sync.Mutex
	places []redisq.Place
	specs  []redisq.FindSpec
}

func (f *fakeFinder) Find(_ context.Context, spec redisq.FindSpec) ([]redisq.Place, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.specs = append(f.specs, spec)
	var out []redisq.Place
	for _, p := range f.places {
		if len(spec.IDs) == 0 || spec.IDs[0] == p.ID {
			out = append(out, p)
		}
	}
	return out, nil
}

// findOptions are setsOptions with a finder (and a queue reader).
func findOptions(f *fakeSets, ff *fakeFinder) (Options, testDeps) {
	o, d := setsOptions(f)
	o.Reads.Sets, o.Reads.SetScan, o.Reads.Queue, o.Reads.Find = f, f, &fakeQueue{jobs: map[string][]string{}}, ff
	return o, d
}

// placesOf se05 in every kind of place.
func placesOf(f *fakeSets) []redisq.Place {
	var at int64
	for _, sj := range f.sets[model.SetDead] {
		if sj.Job != nil && sj.Job.ID == "se05" {
			at = int64(sj.Score)
		}
	}
	rt := fixture().RedisTime.Unix()
	return []redisq.Place{
		{Kind: redisq.PlaceQueue, Key: "work:jobs:send_email", ID: "se05", Name: "send_email", Position: 17},
		{Kind: redisq.PlaceInProgress, Key: "work:jobs:send_email:aaaabbbbccccddddeeeeffff:inprogress", ID: "se05", Name: "send_email", Pool: "aaaabbbbccccddddeeeeffff", PoolStatus: "dead"},
		{Kind: redisq.PlaceDead, Key: "work:dead", ID: "se05", Name: "send_email", At: at, ScoreField: "died"},
		{Kind: redisq.PlaceWorker, Key: "work:worker:w1", ID: "se05", Name: "send_email", Pool: "6f1a2b3c4d5e6f7a8b9c0d1e", PoolStatus: "alive", Worker: "w1", StartedAt: rt - 95, CheckinAt: rt - 5},
		{Kind: redisq.PlaceUnique, Key: "work:unique:send_email:{}", ID: "se05", Name: "send_email", TTL: 812},
	}
}

// TestFindView: f asks with the id of the job under the cursor, enter
// opens the places found as a view; enter on a place goes there: the Jobs
// view on the dead set filtered to the id, the pool's detail, the queue.
func TestFindView(t *testing.T) {
	f := deadFixture()
	ff := &fakeFinder{places: placesOf(f)}
	o, _ := findOptions(f, ff)
	m := newTest(t, o, 100, 30)
	m = drive(t, m, keys("shift+tab")...)
	m = typeFilter(t, m, "id:se05")
	m = drive(t, m, keys("f")...)
	if !cmdLineOpen(m) || cmdLineText(m) != "find se05" {
		t.Fatalf("f: line open %v %q", cmdLineOpen(m), cmdLineText(m))
	}
	m = drive(t, m, keys("enter")...)
	fv, ok := m.top().(findView)
	if !ok || len(fv.places) != 5 || len(ff.specs) != 1 || fmt.Sprint(ff.specs[0].IDs) != "[se05]" || !ff.specs[0].Paced {
		t.Fatalf("find: top %T, %d places, specs %+v", m.top(), len(fv.places), ff.specs)
	}
	view := m.View()
	for _, want := range []string{"5 places", "queue, 17 run before it", "running in pool aaaabbbbcccc… (dead)", "unique key blocks"} {
		if !strings.Contains(view, want) {
			t.Errorf("find view lacks %q:\n%s", want, view)
		}
	}
	// queue
	m = drive(t, m, keys("enter")...)
	if q, ok := m.top().(queueView); !ok || q.job != "send_email" || q.offset != 17 {
		t.Fatalf("enter on the queue: top %T %+v", m.top(), m.top())
	}
	m = drive(t, m, keys("esc", "j", "enter")...)
	if dv, ok := m.top().(detailView); !ok || dv.poolID != "aaaabbbbccccddddeeeeffff" {
		t.Fatalf("enter on the in-progress list: top %T", m.top())
	}
	m = drive(t, m, keys("esc", "j", "enter")...)
	v := jobsView(t, m)
	if m.opened() || !m.setsFocused() || v.set != model.SetDead || v.jobFilter != `id:"se05"` || v.total != 1 {
		t.Fatalf("enter on dead: focused %v set %s filter %q total %d", m.setsFocused(), v.set, v.jobFilter, v.total)
	}
	if sj, ok := v.current(); !ok || sj.Job.ID != "se05" {
		t.Errorf("the cursor is not on se05")
	}
	// :find with a query; a bad one reads nothing.
	m = typeLine(t, m, "find args.to:ops@example.com job:send_email", "enter")
	if len(ff.specs) != 2 || ff.specs[1].Query == nil || len(ff.specs[1].IDs) != 0 || ff.specs[1].Query.JobName() != "send_email" {
		t.Fatalf(":find QUERY: specs %+v", ff.specs)
	}
	m = typeLine(t, m, "find erorr:x", "enter")
	if len(ff.specs) != 2 || !strings.Contains(statusOf(m), `did you mean err:`) {
		t.Errorf(":find erorr:x: %d searches, status %q", len(ff.specs), statusOf(m))
	}
}

// TestFindNotOffered: without a finder, f says so.
func TestFindNotOffered(t *testing.T) {
	m, _ := openJobs(t, deadFixture(), false, 100, 30)
	m = drive(t, m, keys("f")...)
	if cmdLineOpen(m) || statusOf(m) != "find is not available here" {
		t.Errorf("f without a finder: line %v status %q", cmdLineOpen(m), statusOf(m))
	}
}

// TestQueryGolden: at 80x24, the query being typed, the marked-all count,
// the plan of a query and the find result.
func TestQueryGolden(t *testing.T) {
	tests := []struct {
		name string
		keys []string
	}{
		{name: "query_line", keys: []string{"/", "err:timeout since:2h email"}},
		{name: "query_applied", keys: []string{"/", "err:timeout since:2h email", "enter"}},
		{name: "query_bad", keys: []string{"/", "erorr:timeout", "enter"}},
		{name: "marked_all", keys: []string{"/", "err:timeout", "enter", "A"}},
		{name: "query_plan", keys: []string{"/", "err:timeout", "enter", "A", "R"}},
		{name: "find_result", keys: []string{":", "find se05", "enter"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := deadFixture()
			o, _ := findOptions(f, &fakeFinder{places: placesOf(f)})
			m := newTest(t, o, 80, 24)
			m = drive(t, m, keys("shift+tab")...)
			for _, k := range tc.keys {
				m = drive(t, m, keyMsg(k))
			}
			view := m.View()
			checkScreen(t, view, 80, 24)
			golden.RequireEqual(t, []byte(view))
		})
	}
}
