package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestScreenMarksThrottles: the screen's throttle, journalled beside its
// audit log, marks the job type in the next poll; once a pool start
// writes its own value, the next poll drops the mark.
func TestScreenMarksThrottles(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.KnownJobs(), "mail")
	srv.Do("SET", k.MaxConcurrency("mail"), "0")
	fs := pflag.NewFlagSet("screen", pflag.ContinueOnError)
	tgt := &target{}
	tgt.addFlags(fs)
	if err := fs.Parse([]string{"--redis=" + srv.Addr()}); err != nil {
		t.Fatal(err)
	}
	if err := tgt.check(env{getenv: func(string) string { return "" }}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, stop, err := tgt.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client := redisq.NewDialerClient(d, tgt.namespace, tgt.deadAfter)
	defer client.Close()
	pool := d.Pool()
	defer pool.Close()
	auditor := &audit.File{Path: filepath.Join(t.TempDir(), "audit.log"), User: "ann"}
	hist := screenHistoryOf(auditPathOf(auditor), tgt)
	poller := throttleMarking(redisq.NewPoller(client), hist)
	mark := func() *model.Throttled {
		t.Helper()
		snap, err := poller.Poll(ctx, redisq.PollRequest{})
		if err != nil {
			t.Fatal(err)
		}
		jt, ok := snap.JobType("mail")
		if !ok {
			t.Fatal("no job type mail")
		}
		return jt.Throttled
	}
	if th := mark(); th != nil {
		t.Fatalf("marked before any throttle: %+v", th)
	}
	snap, err := client.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := reaper.NewThrottlePlan(snap, "mail", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := screenThrottler{pool: pool, j: newScreenJournal(auditor, tgt)}.Throttle(ctx, plan)
	if err != nil || res.Journal == "" {
		t.Fatalf("throttle: %+v %v", res, err)
	}
	if th := mark(); th == nil || th.Value != 1 || th.By != "ann" || th.Action != res.Journal {
		t.Errorf("after the throttle: %+v", th)
	}
	srv.Do("SET", k.MaxConcurrency("mail"), "0") // a pool started
	if th := mark(); th != nil {
		t.Errorf("still marked after a pool start: %+v", th)
	}
}
