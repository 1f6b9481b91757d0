package reaper

import (
	"context"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/gomodule/redigo/redis"
)

// The demo runs the real reaper on an embedded miniredis: both scripts must
// run there too (no cjson, only redis.call, tonumber and string functions).
func TestReapOnMiniredis(t *testing.T) {
	mr := miniredis.RunT(t)
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }}
	t.Cleanup(func() { pool.Close() })
	c := pool.Get()
	defer c.Close()
	st := workState{
		KnownJobs: []string{"email"},
		Pools:     []statePool{{ID: "p1", AgeSec: 60, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("e", 5)}}},
		Locks:     map[string]int64{"email": 5},
		LockInfo:  map[string]map[string]int64{"email": {"p1": 4}},
	}
	st.write(t, c, "work")
	plan := planAllDead(t, c, "work")
	// Make the script compare against Redis TIME rather than the plan.
	plan.Pools[0].HeartbeatAt--
	res, err := NewReaper(pool, "work", 2).Reap(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pools[0].Reaped || res.TotalMoved() != 5 {
		t.Fatalf("result %+v", res.Pools[0])
	}
	if n, _ := redis.Int(c.Do("LLEN", "work:jobs:email")); n != 5 {
		t.Fatalf("queue has %d", n)
	}
	if v, _ := redis.Int(c.Do("GET", "work:jobs:email:lock")); v != 1 {
		t.Fatalf("lock %d, want 1", v)
	}
	if n, _ := redis.Int(c.Do("EXISTS", "work:worker_pools:p1", "work:jobs:email:lock_info", "work:worker_pools")); n != 0 {
		t.Fatalf("%d keys left", n)
	}
}
