package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// servingPools answers as walking every live pool's job_names does:
// whether a job type is served, by which pools (a pool once for each time
// its heartbeat names the type), and whether all of them are busy, over
// pools that share lists, repeat names, are dead or have no heartbeat.
func TestServingPoolsAsEveryPool(t *testing.T) {
	lists := [][]string{
		{"a", "b", "c"}, {"a", "b", "c"}, {"b"}, {"a", "a"}, nil, {},
		{"c", "d"}, {"1:a"}, {"1", "a"}, {"a:", "b"}, {"a", ":b"},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		snap := &Snapshot{}
		for i := 0; i < r.IntN(40); i++ {
			p := Pool{ID: fmt.Sprintf("p%d", i), InProgress: map[string]int64{"a": int64(r.IntN(3))}}
			if r.IntN(8) > 0 {
				// A copy of the list, as each heartbeat is parsed apart.
				names := append([]string(nil), lists[r.IntN(len(lists))]...)
				p.Heartbeat = &Heartbeat{JobNames: names, Concurrency: int64(r.IntN(3))}
			}
			if r.IntN(6) == 0 {
				p.Status = StatusDead
			}
			snap.Pools = append(snap.Pools, p)
		}
		s := newServingPools(snap)
		for _, job := range []string{"a", "b", "c", "d", "1", "1:a", "a:", ":b", "e", ""} {
			var want []*Pool
			busy := true
			for i := range snap.Pools {
				p := &snap.Pools[i]
				if p.Status == StatusDead || p.Heartbeat == nil {
					continue
				}
				for _, n := range p.Heartbeat.JobNames {
					if n == job {
						want = append(want, p)
						if full, _ := SaturatedPools([]*Pool{p}); len(full) == 0 {
							busy = false
						}
					}
				}
			}
			if got := s.serves(job); got != (len(want) > 0) {
				t.Fatalf("round %d: serves(%q) = %v, want %v", round, job, got, len(want) > 0)
			}
			if got := s.allSaturated(job); got != (busy && len(want) > 0) {
				t.Fatalf("round %d: allSaturated(%q) = %v, want %v", round, job, got, busy && len(want) > 0)
			}
			count := map[*Pool]int{}
			for _, p := range want {
				count[p]++
			}
			got := s.of(job)
			for _, p := range got {
				count[p]--
			}
			for p, n := range count {
				if n != 0 {
					t.Fatalf("round %d: of(%q) holds pool %s %d times too few (%d pools, want %d)", round, job, p.ID, n, len(got), len(want))
				}
			}
		}
	}
}
