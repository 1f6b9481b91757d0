// The drift counters of a snapshot: per job type lock, lock_info and every
// pool's in-progress length, sent next to each other, read by pool
// position, and put in the pools' maps once each.

package redisq

import (
	"errors"
	"fmt"
	"sort"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/model"
)

// countersCmds are the commands of the drift check for one job type, next to
// each other: GET lock, HGETALL lock_info, LLEN of each pool's list.
func countersCmds(keys Keys, job string, poolIDs []string) []cmd {
	cmds := make([]cmd, 0, 2+len(poolIDs))
	cmds = append(cmds, cmd{"GET", []any{keys.Lock(job)}}, cmd{"HGETALL", []any{keys.LockInfo(job)}})
	for _, id := range poolIDs {
		cmds = append(cmds, cmd{"LLEN", []any{keys.InProgress(job, id)}})
	}
	return cmds
}

// sendCounters sends countersCmds without building them first; it returns
// how many commands were sent.
func sendCounters(conn redis.Conn, keys Keys, job string, poolIDs []string) (int, error) {
	n, err := sendCmds(conn, cmd{"GET", []any{keys.Lock(job)}}, cmd{"HGETALL", []any{keys.LockInfo(job)}})
	if err != nil {
		return n, err
	}
	kb := newKeyBuf(keys.Queue(job)+":", poolIDs, ":inprogress")
	for _, id := range poolIDs {
		if err := conn.Send("LLEN", kb.arg(id)...); err != nil {
			return n, fmt.Errorf("send LLEN: %w", err)
		}
		n++
	}
	return n, nil
}

const counterWarning = "counter: "

// applyCounters fills a job type's lock and lock_info from the replies of
// countersCmds, and keeps its pools' lock_info and in-progress entries in ps
// until ps.flush puts them in the pools' maps: knowing how many entries each
// pool gets, flush makes each map once at its size, where growing them entry
// by entry made as much garbage as the replies themselves (1,000 pools x 20
// job types), and a map sized for every job type would waste memory at
// 10,000 pools holding jobs of a few.
func applyCounters(keys Keys, jt *model.JobType, ps *poolSet, r []reply) {
	job := jt.Name
	var err error
	jt.Lock, err = intReply(r[0])
	if err != nil {
		jt.Warnings = append(jt.Warnings, fmt.Sprintf("%s%s: %v", counterWarning, keys.Lock(job), err))
	}
	pc := pendingCounters{job: job, inProg: make([]int64, len(ps.ids)), lockInfo: make([]int64, len(ps.ids)), hasLockInfo: make([]bool, len(ps.ids))}
	li, w := lockInfo(r[1], keys.LockInfo(job), ps, &pc)
	for _, x := range w {
		jt.Warnings = append(jt.Warnings, counterWarning+x)
	}
	jt.LockInfo = li
	for pi, id := range ps.ids {
		n, err := intReply(r[2+pi])
		if err != nil {
			p := ps.pools[pi]
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %v", keys.InProgress(job, id), err))
			continue
		}
		pc.inProg[pi] = n
		if n > 0 {
			ps.nIP[pi]++
		}
	}
	ps.pending = append(ps.pending, pc)
}

// lockInfo reads an HGETALL of lock_info; fields that are not numbers are
// left out with a warning. The reply is read field by field, without an
// intermediate map of strings.
//
// Fields that are pool IDs of ps share those strings rather than allocating
// their own: every job type's lock_info names the same pools.
//
// The fields of ps's pools also go into pc by pool position (counted in
// ps.nLI), so that nothing looks them up in the map again.
func lockInfo(r reply, key string, ps *poolSet, pc *pendingCounters) (map[string]int64, []string) {
	if r.err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", key, r.err)}
	}
	vs, err := redis.Values(r.v, nil)
	if err == nil && len(vs)%2 != 0 {
		err = errors.New("redigo: StringMap expects even number of values result")
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", key, err)}
	}
	if len(vs) == 0 {
		return nil, nil
	}
	var warnings []string
	out := make(map[string]int64, len(vs)/2)
	for i := 0; i < len(vs); i += 2 {
		fb, ok1 := vs[i].([]byte)
		vb, ok2 := vs[i+1].([]byte)
		if !ok1 || !ok2 {
			for pi, has := range pc.hasLockInfo { // nothing of this reply is kept
				if has {
					ps.nLI[pi]--
					pc.lockInfo[pi], pc.hasLockInfo[pi] = 0, false
				}
			}
			return nil, []string{fmt.Sprintf("%s: unexpected reply", key)}
		}
		var f string
		pi, inSet := ps.index[string(fb)]
		if inSet {
			f = ps.ids[pi]
		} else {
			f = string(fb)
		}
		n, err := parseIntBytes(vb)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s field %s: %q is not a whole number", key, f, truncate(string(vb), 40)))
			continue
		}
		out[f] = n
		if inSet {
			if !pc.hasLockInfo[pi] {
				ps.nLI[pi]++
			}
			pc.lockInfo[pi], pc.hasLockInfo[pi] = n, true
		}
	}
	sort.Strings(warnings)
	return out, warnings
}

// poolSet is the pools of a snapshot in the order of ids (the sorted pool
// IDs), with the counters applyCounters keeps for them and, by pool
// position, how many in-progress and lock_info entries they add (counted as
// the replies come in, while Redis is still answering, so that flush has
// less to do once the last reply is read).
type poolSet struct {
	ids      []string
	pools    []*model.Pool
	index    map[string]int
	pending  []pendingCounters
	nIP, nLI []int32
}

// pendingCounters are one job type's entries for the pools' maps, by pool
// position: in-progress lengths (0: none) and lock_info fields.
type pendingCounters struct {
	job         string
	inProg      []int64
	lockInfo    []int64
	hasLockInfo []bool
}

// flush puts the pending entries in the pools' maps, each map made at most
// once and at its size.
func (ps *poolSet) flush() {
	for pi, p := range ps.pools {
		nIP, nLI := ps.nIP[pi], ps.nLI[pi]
		ps.nIP[pi], ps.nLI[pi] = 0, 0
		if nIP > 0 && p.InProgress == nil {
			p.InProgress = make(map[string]int64, nIP)
		}
		if nLI > 0 && p.LockInfo == nil {
			p.LockInfo = make(map[string]int64, nLI)
		}
		for i := range ps.pending {
			pc := &ps.pending[i]
			if n := pc.inProg[pi]; n > 0 {
				p.InProgress[pc.job] = n
			}
			if pc.hasLockInfo[pi] {
				p.LockInfo[pc.job] = pc.lockInfo[pi]
			}
		}
	}
	ps.pending = ps.pending[:0]
}

// alignedPools returns the pools of snap in the order of poolIDs.
func alignedPools(snap *model.Snapshot, poolIDs []string) *poolSet {
	ps := &poolSet{ids: poolIDs, pools: make([]*model.Pool, len(poolIDs)), index: make(map[string]int, len(poolIDs)),
		nIP: make([]int32, len(poolIDs)), nLI: make([]int32, len(poolIDs))}
	for i, id := range poolIDs {
		ps.index[id] = i
	}
	for i := range snap.Pools {
		if pi, ok := ps.index[snap.Pools[i].ID]; ok {
			ps.pools[pi] = &snap.Pools[i]
		}
	}
	return ps
}
