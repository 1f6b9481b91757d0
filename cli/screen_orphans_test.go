package cli

import (
	"bytes"
	"io"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/gomodule/redigo/redis"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// TestScreenRequeuesOrphan runs the screen on a real redis-server through
// the adapters runScreen uses: the scan finds an orphaned in-progress list
// (its pool left worker_pools, a live pool stays), R then y moves its jobs
// back to their queue, and the orphan leaves the view.
func TestScreenRequeuesOrphan(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	k := redisq.NewKeys("work")
	live, gone := "aaaaaaaaaaaaaaaaaaaaaaaa", "0123456789abcdef01234567"
	now := time.Now().Unix()
	srv.Do("SADD", k.WorkerPools(), live)
	srv.Do("HSET", k.Heartbeat(live), "heartbeat_at", now, "started_at", now, "job_names", "send_email", "concurrency", 1,
		"worker_ids", "w1", "host", "h", "pid", 1)
	srv.Do("SADD", k.KnownJobs(), "send_email")
	srv.Do("RPUSH", k.Queue("send_email"), `{"name":"send_email","id":"q1","t":1,"args":{}}`)
	orphan := k.InProgress("send_email", gone)
	jobs := []string{`{"name":"send_email","id":"o1","t":1,"args":{}}`, `{"name":"send_email","id":"o2","t":1,"args":{}}`}
	for _, j := range jobs {
		srv.Do("RPUSH", orphan, j)
	}

	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	client := redisq.NewDialerClient(d, "work", 0)
	defer client.Close()
	pool := d.Pool()
	defer pool.Close()
	repairer := reaper.NewReaper(pool, "work", 0)
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	opts := tui.Options{
		Address: srv.Addr(), Namespace: "work", Interval: time.Hour, ScanInterval: time.Hour,
		Renderer: r,
		Reads:    tui.Reads{Poll: redisq.NewPoller(client), Scan: ScreenScanner(d.Dial, "work", 10)},
		Writes:   tui.Writes{Reap: repairer, Requeue: repairer, Repair: repairer},
	}
	tm := teatest.NewTestModel(t, tui.New(opts), teatest.WithInitialTermSize(120, 30))
	// wait reads the output until every text was in it (WaitFor consumes
	// what it reads, so texts of one frame are waited for together).
	wait := func(texts ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, text := range texts {
				if !bytes.Contains(b, []byte(text)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	wait("1 orphan")
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	wait(gone)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("R")})
	wait("Requeue 2 jobs from 1 in-progress list?", "y: run it")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	wait("requeued 2 jobs from 1 list", "no orphaned in-progress lists")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))

	if n, err := redis.Int(redistest.Do(t, c, "EXISTS", orphan), nil); err != nil || n != 0 {
		t.Fatalf("orphan list still exists (%d, %v)", n, err)
	}
	q, err := redis.Strings(redistest.Do(t, c, "LRANGE", k.Queue("send_email"), 0, -1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 3 {
		t.Fatalf("queue after requeue: %q, want the waiting job and the 2 requeued", q)
	}
	for _, j := range jobs {
		found := false
		for _, x := range q {
			found = found || x == j
		}
		if !found {
			t.Fatalf("job %s not back in the queue %q", j, q)
		}
	}
}
