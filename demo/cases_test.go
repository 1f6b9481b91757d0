package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// explainDemo reads the demo as `explain` does and explains job.
func explainDemo(t *testing.T, cl *redisq.Client, job string) (model.Explanation, *model.Snapshot) {
	t.Helper()
	rd, err := cl.ReadExplain(context.Background(), []string{job}, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := rd.Facts
	f.Unique, f.UniqueScanned = rd.Unique[job], true
	return model.Explain(rd.Snap, f, job), rd.Snap
}

// The demo holds one case of each cause explain is rehearsed on, for every
// seed: a paused type, a type only the dead pool served, a type saturated by
// two long-running jobs with more waiting; and the timeline shows the
// deploy before the card gateway's outage.
func TestDemoCases(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		b, mr := miniBackend(t)
		s := newSim(t, b, "work", seed)
		sc := s.Scenario()
		pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }}
		t.Cleanup(func() { pool.Close() })
		cl := redisq.NewClient(pool, "work", model.DefaultDeadAfter)

		x, _ := explainDemo(t, cl, PausedJob)
		if len(x.Causes) == 0 || x.Causes[0].Kind != model.CausePaused || strings.Join(x.Causes[0].Fix, " ") != "unpause "+PausedJob {
			t.Errorf("seed %d: %s: %+v", seed, PausedJob, x)
		}
		x, _ = explainDemo(t, cl, UnservedJob)
		if len(x.Causes) == 0 || x.Causes[0].Kind != model.CauseNoLivePool || !strings.Contains(strings.Join(x.Causes[0].Evidence, " "), sc.Dead) {
			t.Errorf("seed %d: %s: %+v", seed, UnservedJob, x)
		}
		x, snap := explainDemo(t, cl, SaturatedJob)
		if len(x.Causes) == 0 || x.Causes[0].Kind != model.CauseSaturated {
			t.Fatalf("seed %d: %s: %+v", seed, SaturatedJob, x)
		}
		long := 0
		for _, w := range model.BusyWorkers(snap.Workers) {
			if w.JobName == SaturatedJob && w.LongRunning(snap.LongAfter) && w.HasCheckin {
				long++
			}
		}
		if ev := strings.Join(x.Causes[0].Evidence, "\n"); long != 2 || strings.Count(ev, "running for") != 2 || !strings.Contains(ev, "checked in") {
			t.Errorf("seed %d: %d long-running %s jobs with a check-in; evidence:\n%s", seed, long, SaturatedJob, ev)
		}

		// The deploy: two pools started within a minute, before the
		// outage's first death.
		tl, err := redisq.ReadTimeline(context.Background(), b.conn, "work", model.DefaultDeadAfter, 2*time.Hour, 5*time.Minute, nil)
		if err != nil {
			t.Fatal(err)
		}
		outage := b.now.Add(-OutageAgo).Unix()
		deploy := 0
		for _, m := range tl.Starts {
			if m.StartedAt < outage && m.StartedAt >= outage-int64((DeployAgo-OutageAgo+time.Minute)/time.Second) {
				deploy += m.Pools
			}
		}
		deaths := 0
		for _, bk := range tl.Buckets {
			if bk.Start >= outage-outage%300 && bk.Start < outage+int64(OutageSpan/time.Second) {
				deaths += bk.ByJob["charge_card"]
			}
		}
		if deploy != 2 || deaths < OutageJobs {
			t.Errorf("seed %d: %d pools started in the deploy, %d charge_card failures in the outage's buckets; starts %+v", seed, deploy, deaths, tl.Starts)
		}
	}
}
