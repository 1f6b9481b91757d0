package redisq_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// The snapshot reads the sizes of the retry, scheduled and dead sets in its
// first round trip: an empty namespace costs one round trip, a namespace
// with pools the same as without the sets.
func TestSnapshotSetSizes(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("ss")
	snap, cc := snapshotOn(t, c, "ss")
	if snap.Sets != (model.SetCounts{}) || cc.roundTrips() != 1 {
		t.Fatalf("empty namespace: sets %+v in %d round trips, want zero in 1", snap.Sets, cc.roundTrips())
	}
	job := func(id string) string { return fmt.Sprintf(`{"name":"email","id":%q,"t":1,"args":{}}`, id) }
	for i := 0; i < 3; i++ {
		redistest.Do(t, c, "ZADD", redisq.SetKey(k, model.SetRetry), 100+i, job(fmt.Sprint("r", i)))
	}
	redistest.Do(t, c, "ZADD", redisq.SetKey(k, model.SetScheduled), 200, job("s"))
	for i := 0; i < 11; i++ {
		redistest.Do(t, c, "ZADD", redisq.SetKey(k, model.SetDead), 300, job(fmt.Sprint("d", i)))
	}
	// Another namespace's sets do not count.
	redistest.Do(t, c, "ZADD", "other:dead", 1, "x")
	now := redistest.Time(t, c).Unix()
	heartbeat(t, c, k, "p1", now, "email")
	redistest.Do(t, c, "SADD", k.KnownJobs(), "email")

	snap, cc = snapshotOn(t, c, "ss")
	if want := (model.SetCounts{Retry: 3, Scheduled: 1, Dead: 11}); snap.Sets != want {
		t.Errorf("sets %+v, want %+v", snap.Sets, want)
	}
	// Round trip 3 reads the observations of the workers the heartbeat
	// lists: the set sizes add none.
	if got := cc.roundTrips(); got != 3 {
		t.Errorf("%d round trips, want 3", got)
	}
	if len(snap.Warnings) != 0 {
		t.Errorf("warnings %q, want none", snap.Warnings)
	}
}

// A set key of another type counts 0 and gives one warning naming it; the
// other sets and the rest of the snapshot are read as usual.
func TestSnapshotSetWrongType(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("wt")
	redistest.Do(t, c, "SET", redisq.SetKey(k, model.SetScheduled), "not a zset")
	redistest.Do(t, c, "ZADD", redisq.SetKey(k, model.SetDead), 1, "a", 2, "b")
	now := redistest.Time(t, c).Unix()
	heartbeat(t, c, k, "p1", now, "email")

	snap, _ := snapshotOn(t, c, "wt")
	if want := (model.SetCounts{Dead: 2}); snap.Sets != want {
		t.Errorf("sets %+v, want %+v", snap.Sets, want)
	}
	if len(snap.Warnings) != 1 || !strings.Contains(snap.Warnings[0], "wt:scheduled is not a sorted set") {
		t.Errorf("warnings %q, want one about wt:scheduled", snap.Warnings)
	}
	if len(snap.Pools) != 1 || snap.Pools[0].Status != model.StatusAlive {
		t.Errorf("pools %+v, want p1 alive", snap.Pools)
	}
}
