package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// evil is every kind of text that must not reach a terminal raw: CSI and
// OSC sequences, a bare ESC, C0 controls (NUL, BEL, BS, CR, LF, TAB), DEL,
// C1 controls (CSI, NEL), the bidirectional overrides, embeddings,
// isolates and marks, the line and paragraph separators, and invalid UTF-8.
const evil = "\x1b[31mred\x1b]0;title\x07\x1b\x00\x07\x08\r\n\t\x7f\u009b31m\u0085" +
	"\u202e\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029\xff\xfe"

// badSnapshot holds evil text in every field the screen shows: pool IDs,
// hosts, job names (heartbeat, in-progress and lock_info keys, job types),
// warnings, and the namespace. Every pool is dead and one job type has
// drifted, so every action has something to plan.
func badSnapshot() *model.Snapshot {
	rt := fixedNow.Add(-2 * time.Second)
	job := "job" + evil
	s := &model.Snapshot{Namespace: "ns" + evil, RedisTime: rt, DeadAfter: model.DefaultDeadAfter,
		Warnings: []string{"warning" + evil}}
	for i, id := range []string{"pool" + evil, evil} {
		s.Pools = append(s.Pools, model.Pool{ID: id,
			Heartbeat: &model.Heartbeat{HeartbeatAt: rt.Add(-time.Hour).Unix(), StartedAt: rt.Add(-2 * time.Hour).Unix(),
				Host: "host" + evil, PID: int64(i), Concurrency: 1, JobNames: []string{job, evil}, WorkerIDs: []string{evil}},
			InProgress: map[string]int64{job: 2, evil: 1}, LockInfo: map[string]int64{job: 2, evil: 1},
			Warnings: []string{"pool warning" + evil}})
	}
	s.Pools = append(s.Pools, model.Pool{ID: "no-heartbeat" + evil, InProgress: map[string]int64{job: 1}})
	s.JobTypes = []model.JobType{
		{Name: job, Queued: 3, Lock: 9, MaxConcurrency: 2, LockInfo: map[string]int64{"pool" + evil: 2, evil: 7}, Warnings: []string{evil}},
		{Name: evil, Queued: 1, Lock: 1, LockInfo: map[string]int64{evil: 1}},
	}
	s.Workers = []model.Worker{
		{WorkerID: evil, PoolID: "pool" + evil, Busy: true, JobName: job, JobID: "id" + evil, StartedAt: rt.Add(-time.Hour).Unix(),
			Args: `{"\u001b]0;x\u0007":"\u2066\r\n` + "\u202e\u0085" + `","list":["\u009b1m"]}`, Checkin: "checkin" + evil, HasCheckin: true},
		{WorkerID: "w" + evil, PoolID: evil, Busy: true, JobName: evil, JobID: evil, StartedAt: rt.Unix(), Args: "not json" + evil},
	}
	model.Analyze(s, model.DefaultDeadAfter)
	return s
}

func badOrphans() []model.InProgressList {
	return []model.InProgressList{
		{Key: "ns" + evil + ":jobs:job" + evil + ":gone" + evil + ":inprogress", JobName: "job" + evil, PoolID: "gone" + evil, Length: 4},
		{Key: evil, JobName: evil, PoolID: evil, Length: 1},
	}
}

// badPeeker returns payloads with evil text in every field, and one that
// is not JSON at all.
type badPeeker struct{}

func (badPeeker) PeekInProgress(context.Context, string, string, int) ([]string, error) {
	return []string{
		`{"name":"\u001b[2J\u202e","id":"\u009b1m\u0007","t":"\u001b","args":{"\u001b]0;x\u0007":"\u2066\r\n"},"err":"\u001b[31m"}`,
		`{"name":"n","id":"i","t":1795964200,"args":["\u0000\u001b[H\u202d"]}`,
		"raw" + evil,
	}, errors.New("peek failed" + evil)
}

// TestBadDataReachesNoScreenRaw renders every view, dialog, status line and
// the header of a namespace whose every field holds control, escape and
// bidirectional text, with an Ascii renderer (so any ESC at all is a leak),
// and finds none of it raw.
func TestBadDataReachesNoScreenRaw(t *testing.T) {
	for _, width := range []int{80, 140} {
		o, _, sc, _ := repairOptions()
		snap := badSnapshot()
		o.Reads.Poll, o.Reads.Peek = staticSource(snap), badPeeker{}
		o.Address = "redis" + evil + ":6379"
		o.Namespace = snap.Namespace
		sc.orphans = badOrphans()
		d := o.Writes.Reap.(*fakeReaper)
		d.skip = snap.Pools[1].ID
		d.err = errors.New("reap failed" + evil)

		var screens []string
		seen := map[string]bool{}
		show := func(name string, m Model) Model {
			t.Helper()
			if strings.Contains(name, "dialog") && !dialogOpen(m) {
				t.Fatalf("%s: no dialog open; status %q", name, statusOf(m))
			}
			v := m.View()
			checkScreen(t, v, width, 30)
			if bad, ok := screenSafe(v, true); !ok {
				t.Errorf("%s at %d columns: %q reached the screen:\n%s", name, width, bad, v)
			}
			seen[name] = true
			screens = append(screens, v)
			return m
		}
		press := func(m Model, keys ...string) Model {
			for _, k := range keys {
				var cmd tea.Cmd
				m, cmd = stepCmd(m, keyMsg(k))
				m, _ = deliver(t, m, cmd)
			}
			return m
		}
		m := newScanTest(t, o, width, 30)
		m = show("pools", m)
		m = show("full help", press(m, "?"))
		m = press(m, "?")
		m = show("detail", press(m, "enter"))
		m = show("detail scrolled", press(m, "G"))
		m = show("requeue dialog (dead pool)", press(m, "R"))
		m = show("requeue result", press(m, "y"))
		m = press(m, "esc", "g")
		m = show("reap dialog", press(m, "x"))
		m = show("reap result", press(m, "y"))
		m = show("reap all dialog", press(m, "X"))
		m = press(m, "n")
		m = show("filter typed", press(m, "/", "\x1b[31m\u202e", "enter"))
		m = press(m, "esc")
		m = show("job types", press(m, "tab"))
		m = show("hint", press(m, "R"))
		for i := 0; i < 2 && !dialogOpen(m); i++ {
			m = press(m, "L")
			if !dialogOpen(m) {
				m = press(m, "j")
			}
		}
		if !dialogOpen(m) {
			t.Fatalf("no job type of the bad snapshot opens a lock repair: %q", statusOf(m))
		}
		m = show("lock repair dialog", m)
		m = show("lock repair result", press(m, "y"))
		m = show("orphans", press(m, "tab"))
		m = show("requeue dialog (orphan)", press(m, "R"))
		m = press(m, "n")
		m = show("workers", press(m, "tab"))
		if v := screens[len(screens)-1]; !strings.Contains(v, "ARGUMENTS") || !strings.Contains(v, "LONG DEAD") {
			t.Errorf("the workers view shows no busy worker and its arguments:\n%s", v)
		}
		m = press(m, "shift+tab")
		// Redis fails with an error that quotes bad data: the header and
		// the stale dialog show it.
		m = step(t, m, current(m, snapshotMsg{err: errors.New("read" + evil), at: fixedNow}))
		m = show("error header", m)
		m = press(m, "tab")
		show("stale reap dialog", press(m, "X"))

		all := strings.Join(screens, "\n")
		for _, want := range []string{`\x1b[31m`, `\u202e`, `\u009b`, `\xff`} {
			if !strings.Contains(all, want) {
				t.Errorf("no screen shows %s escaped: the bad data never reached a screen", want)
			}
		}
		if len(seen) != 19 {
			t.Errorf("%d screens rendered", len(seen))
		}
	}
}
