package redisq_test

import (
	"fmt"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// The job types of known_jobs are read in the same round trip as the
// heartbeats; a job type that only a heartbeat names is read in the third
// round trip, with the workers' observations (these heartbeats name
// workers, so there is a third either way), and the snapshot is the same
// either way.
func TestSnapshotJobTypesOutsideKnownJobs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("rt")
	now := redistest.Time(t, c).Unix()
	heartbeat(t, c, k, "p1", now, "a", "b")
	heartbeat(t, c, k, "p2", now, "b", "c:x")
	redistest.Do(t, c, "SADD", k.KnownJobs(), "b", "a")
	take(t, c, k, "a", "p1", 1)
	take(t, c, k, "b", "p2", 2)
	take(t, c, k, "c:x", "p2", 3)

	describe := func(rt int) string {
		snap, cc := snapshotOn(t, c, "rt")
		if got := cc.roundTrips(); got != rt {
			t.Errorf("%d round trips, want %d", got, rt)
		}
		s := ""
		for _, jt := range snap.JobTypes {
			s += fmt.Sprintf("%s lock %d in progress %d drift %v; ", jt.Name, jt.Lock, jt.InProgress, jt.Drift)
		}
		for _, p := range snap.Pools {
			s += fmt.Sprintf("%s %v %v; ", p.ID, p.InProgress, p.LockInfo)
		}
		return s
	}
	without := describe(3)
	want := "a lock 1 in progress 1 drift false; b lock 2 in progress 2 drift false; c:x lock 3 in progress 3 drift false; " +
		"p1 map[a:1] map[a:1]; p2 map[b:2 c:x:3] map[b:2 c:x:3]; "
	if without != want {
		t.Fatalf("with c:x outside known_jobs:\n%s\nwant\n%s", without, want)
	}
	redistest.Do(t, c, "SADD", k.KnownJobs(), "c:x")
	if with := describe(3); with != without {
		t.Fatalf("with c:x in known_jobs:\n%s\nwithout:\n%s", with, without)
	}
}
