// The live pools that serve each job type, as the job health judges a
// queue by them: whether any serves it, whether all of them are busy, and
// which they are.

package model

import (
	"slices"
	"strconv"
)

// servingPools are the live (not dead) pools with a heartbeat, grouped by
// their job_names: the pools of a deployment mostly list the same job
// types, so a judgement walks each distinct list once instead of every
// pool's, and a pool's in-progress lists are summed only when a queue
// waits long enough to ask whether every pool serving it is busy.
type servingPools struct {
	groups []poolGroup
	// byJob holds per job name the groups whose list names it, a group
	// once for each time its list does (as a pool is counted once for
	// each time its heartbeat names the job).
	byJob map[string][]int
}

// poolGroup is the live pools with one job_names list.
type poolGroup struct {
	names []string
	pools []*Pool
	// full is 1 when every pool of the group holds as many jobs as its
	// concurrency (SaturatedPools), -1 when one does not, 0 not known yet.
	full int8
}

// newServingPools groups snap's live pools by their job_names.
func newServingPools(snap *Snapshot) *servingPools {
	s := &servingPools{byJob: map[string][]int{}}
	index := map[string]int{}
	var key []byte
	last := -1
	for i := range snap.Pools {
		p := &snap.Pools[i]
		if p.Status == StatusDead || p.Heartbeat == nil {
			continue
		}
		names := p.Heartbeat.JobNames
		if last >= 0 && slices.Equal(s.groups[last].names, names) {
			s.groups[last].pools = append(s.groups[last].pools, p)
			continue
		}
		// The key says each name's length before it, so that no two
		// lists share one whatever bytes their names hold.
		key = key[:0]
		for _, n := range names {
			key = strconv.AppendInt(key, int64(len(n)), 10)
			key = append(key, ':')
			key = append(key, n...)
		}
		g, ok := index[string(key)]
		if !ok {
			g = len(s.groups)
			index[string(key)] = g
			s.groups = append(s.groups, poolGroup{names: names})
			for _, n := range names {
				s.byJob[n] = append(s.byJob[n], g)
			}
		}
		s.groups[g].pools = append(s.groups[g].pools, p)
		last = g
	}
	return s
}

// serves reports whether a live pool lists job.
func (s *servingPools) serves(job string) bool { return len(s.byJob[job]) > 0 }

// of lists the live pools that list job (a pool once for each time its
// heartbeat names it), group by group.
func (s *servingPools) of(job string) []*Pool {
	n := 0
	for _, g := range s.byJob[job] {
		n += len(s.groups[g].pools)
	}
	out := make([]*Pool, 0, n)
	for _, g := range s.byJob[job] {
		out = append(out, s.groups[g].pools...)
	}
	return out
}

// allSaturated reports whether job has live pools and every one of them
// holds as many jobs as its concurrency.
func (s *servingPools) allSaturated(job string) bool {
	gs := s.byJob[job]
	for _, g := range gs {
		if !s.groups[g].saturated() {
			return false
		}
	}
	return len(gs) > 0
}

// saturated reports whether every pool of g is saturated, found once.
func (g *poolGroup) saturated() bool {
	if g.full == 0 {
		g.full = 1
		for _, p := range g.pools {
			if full, _ := SaturatedPools([]*Pool{p}); len(full) == 0 {
				g.full = -1
				break
			}
		}
	}
	return g.full > 0
}
