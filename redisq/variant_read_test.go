package redisq

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// The variant's evidence is read in a few round trips, however many lists
// it looks at (50 queues here, the most it takes): Harbor's keys in one,
// the first and last job of each list and set in another, then the
// unique keys' SCAN and values. It finds what it found one command at a
// time: the unique_key field in a queue's last job (ahead of a unique job
// without one in the dead set), Harbor's keys.
func TestReadVariantRoundTrips(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	keys := NewKeys("work")
	snap := &model.Snapshot{Namespace: "work"}
	for i := 0; i < 60; i++ {
		name := fmt.Sprintf("job%02d", i)
		redistest.Do(t, c, "RPUSH", keys.Queue(name), `{"name":"x","id":"1","t":1,"args":{}}`, `{"name":"x","id":"2","t":1,"args":{}}`)
		snap.JobTypes = append(snap.JobTypes, model.JobType{Name: name, Queued: 2})
	}
	redistest.Do(t, c, "LSET", keys.Queue("job07"), -1, `{"name":"x","id":"3","t":1,"args":{},"unique":true,"unique_key":"k"}`)
	redistest.Do(t, c, "ZADD", keys.Dead(), 1, `{"name":"x","id":"4","t":1,"args":{},"unique":true,"err":"e"}`)
	cost := &model.ReadCost{}
	v, err := ReadVariant(context.Background(), metered(c, cost), keys, snap)
	if err != nil {
		t.Fatal(err)
	}
	evidence := strings.Join(v.Evidence, "; ")
	for _, want := range []string{keys.Queue("job07")} {
		if !strings.Contains(evidence, want) {
			t.Errorf("evidence %q does not name %s", evidence, want)
		}
	}
	if cost.RoundTrips > 4 || cost.Commands < 100 {
		t.Errorf("%d commands in %d round trips, want the 100 LINDEX and more in at most 4", cost.Commands, cost.RoundTrips)
	}
	redistest.Do(t, c, "SET", keys.Prefix()+"hook_events", "1")
	if v, err = ReadVariant(context.Background(), c, keys, snap); err != nil {
		t.Fatal(err)
	}
	if evidence := strings.Join(v.Evidence, "; "); !strings.Contains(evidence, "work:hook_events") {
		t.Errorf("evidence %q does not name Harbor's key", evidence)
	}
}

// The variant looks at 50 lists at most, and builds the keys of no more
// than those: at 1,000 pools x 20 job types, building all 20,000
// in-progress keys to keep 50 made 20,000 allocations (1.2 MB) in every
// snapshot command.
func TestReadVariantBuildsOnlyTheSampledKeys(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	keys := NewKeys("work")
	snap := &model.Snapshot{Namespace: "work"}
	for i := 0; i < 20; i++ {
		snap.JobTypes = append(snap.JobTypes, model.JobType{Name: fmt.Sprintf("job%02d", i)})
	}
	for p := 0; p < 1000; p++ {
		pool := model.Pool{ID: fmt.Sprintf("%024x", p), InProgress: map[string]int64{}}
		for _, jt := range snap.JobTypes {
			pool.InProgress[jt.Name] = 1
		}
		snap.Pools = append(snap.Pools, pool)
	}
	var err error
	allocs := testing.AllocsPerRun(1, func() {
		_, err = ReadVariant(context.Background(), c, keys, snap)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.0f allocations", allocs)
	if allocs > 2000 {
		t.Errorf("ReadVariant made %.0f allocations over 20,000 in-progress lists, want at most 2,000 (it looks at 50)", allocs)
	}
}
