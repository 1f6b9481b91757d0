package pause_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/gomodule/redigo/redis"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// frames keeps every frame the screen renders.
type frames struct {
	mu  sync.Mutex
	all []string
}

func (f *frames) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.all) == 0 {
		return ""
	}
	return f.all[len(f.all)-1]
}

// recorder is the screen, noting each frame it renders.
type recorder struct {
	inner tea.Model
	f     *frames
}

func (r recorder) Init() tea.Cmd { return r.inner.Init() }

func (r recorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := r.inner.Update(msg)
	return recorder{m, r.f}, cmd
}

func (r recorder) View() string {
	v := r.inner.View()
	r.f.mu.Lock()
	r.f.all = append(r.f.all, v)
	r.f.mu.Unlock()
	return v
}

type memAudit struct {
	mu      sync.Mutex
	entries []audit.Entry
}

func (a *memAudit) Record(e audit.Entry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries = append(a.entries, e)
	return nil
}

func (a *memAudit) list() []audit.Entry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]audit.Entry(nil), a.entries...)
}

// TestScreenPauseAndUnpause runs the screen in-process on the real
// snapshot source, queue reader and pauser against a live gocraft/work
// pool: p and y on the Job types view pause steady (the pool stops taking
// it, the header counts it), p and y again unpause it (the pool drains
// it), one audit line each; enter on it shows its queue in run order.
func TestScreenPauseAndUnpause(t *testing.T) {
	srv := redistest.Start(t)
	const ns = "conf-pause-screen"
	keys := redisq.NewKeys(ns)
	rp := gcstate.RedisPool(t, srv.Addr())
	c := srv.Dial()
	defer c.Close()
	stream := startStream(t, rp, ns)
	st := startPool(t, rp, ns, 6, 30*time.Millisecond, "steady", "other")
	gcstate.WaitFor(t, 10*time.Second, "20 steady jobs run", func() (bool, error) { return len(st.of("steady")) >= 20, nil })

	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	client := redisq.NewClient(rp, ns, 0)
	aud := &memAudit{}
	o := tui.Options{Address: srv.Addr(), Namespace: ns, Interval: 200 * time.Millisecond, Renderer: r,
		Reads:  tui.Reads{Poll: redisq.NewPoller(client), Queue: client},
		Writes: tui.Writes{Reap: reaper.NewReaper(rp, ns, 0), Pause: reaper.NewPauser(rp)},
		Audit:  aud}
	f := &frames{}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p := tea.NewProgram(recorder{tui.New(o), f}, tea.WithInput(nil), tea.WithOutput(io.Discard),
		tea.WithContext(ctx), tea.WithoutSignalHandler())
	errc := make(chan error, 1)
	go func() { _, err := p.Run(); errc <- err }()
	defer func() {
		p.Quit()
		if err := <-errc; err != nil {
			t.Errorf("screen: %v", err)
		}
	}()
	waitFrame := func(what string, cond func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			if fr := f.last(); cond(fr) {
				return fr
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("the screen never showed %s; last frame:\n%s", what, f.last())
		return ""
	}
	has := func(texts ...string) func(string) bool {
		return func(fr string) bool {
			for _, s := range texts {
				if !strings.Contains(fr, s) {
					return false
				}
			}
			return true
		}
	}
	key := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

	p.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	waitFrame("the first snapshot", has("2 job types"))
	p.Send(tea.KeyMsg{Type: tea.KeyTab})
	p.Send(key("G")) // steady, the last of other and steady
	waitFrame("the Job types view with p", has("[Job types]", "p pause"))

	p.Send(key("p"))
	waitFrame("the pause dialog", has("Pause steady?", "workers stop taking new steady jobs", "y: run it"))
	if n, _ := redis.Int(c.Do("EXISTS", keys.Paused("steady"))); n != 0 {
		t.Fatal("paused before y")
	}
	p.Send(key("y"))
	waitFrame("the pause done and counted", has("paused steady", "1 paused"))
	pausedAt := time.Now()
	if v, err := redis.String(c.Do("GET", keys.Paused("steady"))); err != nil || v != "1" {
		t.Fatalf("pause key %q, %v", v, err)
	}
	gcstate.WaitFor(t, 5*time.Second, "steady's in-progress jobs end", func() (bool, error) {
		return inProgress(t, c, keys, "steady") == 0, nil
	})
	ended := len(st.of("steady"))
	otherBefore := len(st.of("other"))
	time.Sleep(2 * time.Second)
	if n := len(st.of("steady")); n != ended {
		t.Errorf("%d steady jobs started while paused", n-ended)
	}
	if n := len(st.of("other")); n <= otherBefore {
		t.Error("other stopped too")
	}
	late := map[string]bool{}
	for _, id := range stream.since(pausedAt) {
		late[id] = true
	}
	for _, id := range st.of("steady") {
		if late[id] {
			t.Errorf("steady job %s, enqueued after the pause, ran", id)
		}
	}

	// The queue view lists the paused queue in run order: #1 is the job
	// at the tail of the list.
	next, err := redis.Bytes(c.Do("LINDEX", keys.Queue("steady"), -1))
	if err != nil {
		t.Fatal(err)
	}
	p.Send(tea.KeyMsg{Type: tea.KeyEnter})
	fr := waitFrame("the queue view", has("queue steady", "PAUSED", "paused: none runs until it is unpaused", "in run order"))
	if id := model.ParseJob(string(next)).ID; !strings.Contains(fr, "#1 steady  id "+id) {
		t.Errorf("#1 is not %s:\n%s", id, fr)
	}
	p.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFrame("the Job types view with p unpause", has("p unpause"))

	stream.stop()
	total := len(stream.since(time.Time{}))
	p.Send(key("p"))
	waitFrame("the unpause dialog", has("Unpause steady?", "workers start taking steady jobs again", "y: run it"))
	p.Send(key("y"))
	waitFrame("the unpause done", has("unpaused steady"))
	if n, _ := redis.Int(c.Do("EXISTS", keys.Paused("steady"))); n != 0 {
		t.Fatal("pause key left after unpause")
	}
	gcstate.WaitFor(t, 20*time.Second, "the steady queue drains", func() (bool, error) {
		return llen(t, c, keys.Queue("steady")) == 0 && len(st.of("steady")) == total, nil
	})
	entries := aud.list()
	if len(entries) != 2 || entries[0].Action != "pause" || entries[1].Action != "unpause" ||
		strings.Join(entries[0].Targets, ",") != "steady" || strings.Join(entries[1].Targets, ",") != "steady" {
		t.Errorf("audit entries %+v", entries)
	}
}
