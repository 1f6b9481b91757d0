package reaper

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// pauseSnapshot: send_email (known, 3 in progress, 12 queued), report
// (paused) and resize (named only by a pool's heartbeat).
func pauseSnapshot() *model.Snapshot {
	return &model.Snapshot{
		Namespace: "work",
		Pools:     []model.Pool{{ID: "p1", Heartbeat: &model.Heartbeat{JobNames: []string{"resize", "send_email"}}}},
		JobTypes: []model.JobType{
			{Name: "report", Paused: true, Queued: 4},
			{Name: "send_email", InProgress: 3, Queued: 12},
		},
	}
}

func TestNewPausePlan(t *testing.T) {
	snap := pauseSnapshot()
	p, err := NewPausePlan(snap, []string{"send_email", "resize", "send_email"}, true, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []PauseJob{
		{Name: "send_email", Key: "work:jobs:send_email:paused", Known: true, InProgress: 3, Queued: 12},
		{Name: "resize", Key: "work:jobs:resize:paused", Known: true},
	}
	if !reflect.DeepEqual(p.Jobs, want) || !p.Pause || p.Namespace != "work" {
		t.Errorf("plan %+v", p)
	}

	_, err = NewPausePlan(snap, []string{"send_emial"}, true, false)
	if !errors.Is(err, ErrUnknownJob) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `"send_emial"`) {
		t.Errorf("unknown name not refused in one line: %v", err)
	}
	p, err = NewPausePlan(snap, []string{"send_emial"}, true, true)
	if err != nil || len(p.Jobs) != 1 || p.Jobs[0].Known {
		t.Errorf("forced: %+v, %v", p, err)
	}
	// Unpausing an unknown name deletes nothing that matters: no force.
	if _, err := NewPausePlan(snap, []string{"old_job"}, false, false); err != nil {
		t.Errorf("unpause of an unknown name: %v", err)
	}
	for _, jobs := range [][]string{nil, {""}} {
		if _, err := NewPausePlan(snap, jobs, true, true); !errors.Is(err, ErrNoJob) {
			t.Errorf("%q: %v, want ErrNoJob", jobs, err)
		}
	}
	if _, err := NewPausePlan(nil, []string{"x"}, true, false); err == nil {
		t.Error("no snapshot: no error")
	}
}

func TestRenderPausePlan(t *testing.T) {
	snap := pauseSnapshot()
	snap.JobTypes = append(snap.JobTypes, model.JobType{Name: "evil\x1b[2J", InProgress: 1})
	p, err := NewPausePlan(snap, []string{"send_email", "report", "evil\x1b[2J", "nope"}, true, true)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	RenderPausePlan(&b, p)
	want := `Pause plan for namespace work:
  send_email: workers stop taking new send_email jobs; the 3 in progress finish
    SET work:jobs:send_email:paused 1
  report: already paused: nothing to do
  evil\x1b[2J: workers stop taking new evil\x1b[2J jobs; the 1 in progress finishes
    SET work:jobs:evil\x1b[2J:paused 1
  nope: workers stop taking new nope jobs; none is in progress
    nope is not a known job type: no worker pool names it
    SET work:jobs:nope:paused 1

Jobs already taken run to the end; enqueues go on and the queue grows.
Every key is re-checked when written: one that holds something other than a string refuses the whole change.
`
	if b.String() != want {
		t.Errorf("pause plan:\n%s\nwant:\n%s", b.String(), want)
	}

	p, err = NewPausePlan(snap, []string{"report", "send_email"}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	RenderPausePlan(&b, p)
	for _, line := range []string{
		"Unpause plan for namespace work:",
		"  report: workers start taking report jobs again; 4 queued",
		"    DEL work:jobs:report:paused",
		"  send_email: not paused: nothing to do",
		"work resumes within seconds",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("unpause plan lacks %q:\n%s", line, b.String())
		}
	}
	b.Reset()
	RenderPauseResult(&b, PauseResult{Pause: true, Jobs: []PauseJobResult{
		{Name: "a", Status: PauseDone}, {Name: "b", Status: PauseAlready}, {Name: "c\n", Key: "k", Status: PauseRefused, Type: "hash"},
	}})
	if want := "a: paused\nb: already paused\nc\\n: refused (k is a hash)\nDone: 1 job type paused.\n"; b.String() != want {
		t.Errorf("result:\n%q\nwant\n%q", b.String(), want)
	}
}

// TestExecutePause runs the script against a real redis-server.
func TestExecutePause(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	keys := redisq.NewKeys("work")
	plan := func(pause bool, jobs ...string) PausePlan {
		p, err := NewPausePlan(pauseSnapshot(), jobs, pause, true)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	status := func(r PauseResult) []string {
		var out []string
		for _, j := range r.Jobs {
			out = append(out, j.Name+"="+j.Status)
		}
		return out
	}

	// Pause: SET 1 where there is no key; an existing pause (any value,
	// with its expiry) is left as it is.
	redistest.Do(t, c, "SET", keys.Paused("report"), "0", "EX", 600)
	res, err := ExecutePause(ctx, c, plan(true, "send_email", "report"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := status(res), []string{"send_email=paused", "report=already paused"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pause: %v, want %v", got, want)
	}
	if v, _ := redis.String(c.Do("GET", keys.Paused("send_email"))); v != "1" {
		t.Errorf("send_email paused = %q, want 1", v)
	}
	if v, _ := redis.String(c.Do("GET", keys.Paused("report"))); v != "0" {
		t.Errorf("report's pause rewritten: %q", v)
	}
	if ttl, _ := redis.Int(c.Do("TTL", keys.Paused("report"))); ttl <= 0 {
		t.Errorf("report's pause lost its expiry: ttl %d", ttl)
	}
	if res.Changed() != 1 {
		t.Errorf("changed %d", res.Changed())
	}

	// Unpause: DEL; a type that is not paused is reported so.
	res, err = ExecutePause(ctx, c, plan(false, "send_email", "resize"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := status(res), []string{"send_email=unpaused", "resize=not paused"}; !reflect.DeepEqual(got, want) {
		t.Errorf("unpause: %v, want %v", got, want)
	}
	if n, _ := redis.Int(c.Do("EXISTS", keys.Paused("send_email"), keys.Paused("resize"))); n != 0 {
		t.Errorf("%d pause keys left", n)
	}

	// A key of another type refuses the whole change: nothing written.
	redistest.Do(t, c, "HSET", keys.Paused("resize"), "f", "v")
	for _, pause := range []bool{true, false} {
		before := redistest.Dump(t, c, "*")
		res, err = ExecutePause(ctx, c, plan(pause, "send_email", "resize", "report"))
		if !errors.Is(err, ErrWrongType) || !strings.Contains(err.Error(), "work:jobs:resize:paused is a hash") {
			t.Errorf("pause %v: %v, want ErrWrongType naming the key", pause, err)
		}
		if got, want := status(res), []string{"send_email=not changed", "resize=refused", "report=not changed"}; !reflect.DeepEqual(got, want) {
			t.Errorf("pause %v: %v, want %v", pause, got, want)
		}
		if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
			t.Errorf("pause %v changed Redis:\nbefore %v\nafter  %v", pause, before, after)
		}
	}

	// A read-only connection refuses before anything is sent.
	ro := redisq.ReadOnlyConn(srv.Dial())
	defer ro.Close()
	if _, err := ExecutePause(ctx, ro, plan(true, "send_email")); !errors.Is(err, redisq.ErrReadOnly) {
		t.Errorf("read-only: %v", err)
	}
	if n, _ := redis.Int(c.Do("EXISTS", keys.Paused("send_email"))); n != 0 {
		t.Error("read-only connection paused")
	}

	// The Pauser takes its own connection.
	res, err = NewPauser(srv.Pool()).Pause(ctx, plan(true, "send_email"))
	if err != nil || res.Changed() != 1 {
		t.Errorf("Pauser: %+v, %v", res, err)
	}
}
