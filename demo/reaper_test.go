package demo

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestOperatorActionsOnDemo runs the real reaper, requeue and repair-locks
// on the demo's wreckage, with the simulation moving between the reaper's
// batches, and checks that the namespace ends consistent and that the live
// pools process the jobs given back to them.
func TestOperatorActionsOnDemo(t *testing.T) {
	for _, name := range []string{"miniredis", "redis-server"} {
		t.Run(name, func(t *testing.T) {
			var b backend
			if name == "miniredis" {
				b, _ = miniBackend(t)
			} else {
				b = realBackend(t)
			}
			const ns = "work"
			ctx := context.Background()
			keys := redisq.NewKeys(ns)
			s := newSim(t, b, ns, 3)
			sc := s.Scenario()
			if b.setTime != nil {
				advance(t, s, 20*time.Second, 250*time.Millisecond, nil)
			}
			opConn := b.dial() // the operator's connection
			step := func(int64, int64) {
				if err := s.AdvanceTo(ctx, s.Now().Add(250*time.Millisecond)); err != nil {
					t.Fatalf("advance: %v", err)
				}
			}
			lists := func(pool string) map[string][]string {
				out := map[string][]string{}
				for _, j := range sc.JobNames {
					v, err := redis.Strings(opConn.Do("LRANGE", keys.InProgress(j, pool), 0, -1))
					if err != nil {
						t.Fatal(err)
					}
					if len(v) > 0 {
						out[j] = v
					}
				}
				return out
			}
			count := func(m map[string][]string) (n int64) {
				for _, v := range m {
					n += int64(len(v))
				}
				return n
			}
			given := map[string][]string{} // jobs handed back, by job type
			addGiven := func(m map[string][]string) {
				for j, v := range m {
					given[j] = append(given[j], v...)
				}
			}
			snapshot := func() *model.Snapshot {
				snap, err := redisq.ReadSnapshot(ctx, opConn, ns, model.DefaultDeadAfter)
				if err != nil {
					t.Fatalf("snapshot: %v", err)
				}
				return snap
			}

			// The screen's view of the demo.
			snap := snapshot()
			status := map[string]model.Status{}
			for _, p := range snap.Pools {
				status[p.ID] = p.Status
			}
			for _, id := range sc.Live {
				if status[id] != model.StatusAlive {
					t.Errorf("live pool %s is %s", id, status[id])
				}
			}
			if status[sc.Dead] != model.StatusDead || status[sc.Vanished] != model.StatusDead {
				t.Errorf("dead pool %s, vanished pool %s, want both dead", status[sc.Dead], status[sc.Vanished])
			}
			var drift bool
			for _, jt := range snap.JobTypes {
				if jt.Name == sc.DriftJob {
					drift = jt.Drift
				}
			}
			if !drift {
				t.Errorf("snapshot shows no drift on %s", sc.DriftJob)
			}
			orphans, err := redisq.ScanOrphans(ctx, opConn, keys, 100, nil)
			if err != nil {
				t.Fatalf("orphan scan: %v", err)
			}
			if len(orphans.Orphans) != 1 || orphans.Orphans[0].PoolID != sc.Orphan {
				t.Errorf("orphan scan found %+v, want the list of %s", orphans.Orphans, sc.Orphan)
			}

			// 1. Reap the dead pool, two jobs per script call, the
			// simulation moving between calls.
			held := lists(sc.Dead)
			addGiven(held)
			plan, err := reaper.NewPlan(snap, reaper.Targets{PoolIDs: []string{sc.Dead}})
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			if plan.TotalJobs() != count(held) {
				t.Errorf("plan moves %d jobs, the pool holds %d", plan.TotalJobs(), count(held))
			}
			res, err := reaper.NewReaper(redisq.OneConn(opConn), ns, 2).Reap(ctx, plan, step)
			if err != nil {
				t.Fatalf("reap: %v", err)
			}
			if len(res.Pools) != 1 || !res.Pools[0].Reaped || res.TotalMoved() != count(held) {
				t.Fatalf("reap result %+v, want the pool reaped and %d jobs moved", res.Pools, count(held))
			}
			st := readState(t, b.conn, ns)
			if st.set[sc.Dead] || st.heartbeats[sc.Dead] != nil || st.inProgressOf(sc.Dead) != 0 {
				t.Errorf("after reap: in set %v, heartbeat %v, in progress %d", st.set[sc.Dead], st.heartbeats[sc.Dead], st.inProgressOf(sc.Dead))
			}
			if bad := st.inconsistent(except(sc.JobNames, sc.DriftJob)); len(bad) > 0 {
				t.Errorf("after reaping the dead pool: %v", bad)
			}

			// 2. Reap every dead pool: now the vanished one.
			held = lists(sc.Vanished)
			addGiven(held)
			plan, err = reaper.NewPlan(snapshot(), reaper.Targets{AllDead: true})
			if err != nil {
				t.Fatalf("plan all dead: %v", err)
			}
			if len(plan.Pools) != 1 || plan.Pools[0].PoolID != sc.Vanished {
				t.Fatalf("all-dead plan %+v, want the vanished pool only", plan.Pools)
			}
			res, err = reaper.NewReaper(redisq.OneConn(opConn), ns, 0).Reap(ctx, plan, step)
			if err != nil || res.TotalMoved() != count(held) {
				t.Fatalf("reap vanished: moved %d of %d, %v", res.TotalMoved(), count(held), err)
			}

			// 3. Requeue the orphan list.
			orphanKey := keys.InProgress(sc.OrphanJob, sc.Orphan)
			held = lists(sc.Orphan)
			addGiven(held)
			rp, err := reaper.NewReaper(redisq.OneConn(opConn), ns, 0).PlanRequeue(ctx, []string{orphanKey}, model.DefaultDeadAfter)
			if err != nil {
				t.Fatalf("plan requeue: %v", err)
			}
			rr, err := reaper.NewReaper(redisq.OneConn(opConn), ns, 1000).Requeue(ctx, rp, step)
			if err != nil || rr.Err() != nil || rr.TotalMoved() != count(held) {
				t.Fatalf("requeue orphan: moved %d of %d, %v, %v", rr.TotalMoved(), count(held), err, rr.Err())
			}

			// 4. Repair the drifted lock.
			queuedBefore := len(readState(t, b.conn, ns).queues[sc.DriftJob])
			lp, err := reaper.NewReaper(redisq.OneConn(opConn), ns, 0).PlanRepairLocks(ctx, []string{sc.DriftJob})
			if err != nil {
				t.Fatalf("plan repair-locks: %v", err)
			}
			lr, err := reaper.NewReaper(redisq.OneConn(opConn), ns, 0).RepairLocks(ctx, lp)
			if err != nil || lr.Err() != nil {
				t.Fatalf("repair-locks: %v, %v", err, lr.Err())
			}
			st = readState(t, b.conn, ns)
			if bad := st.inconsistent(sc.JobNames); len(bad) > 0 {
				t.Errorf("after the repairs: %v", bad)
			}

			// The live pools go on, and take what was given back. The rule
			// now holds for every job type, after every step.
			steps := 0
			advance(t, s, 2*time.Minute, 250*time.Millisecond, func() {
				steps++
				if steps%8 == 0 {
					if bad := readState(t, b.conn, ns).inconsistent(sc.JobNames); len(bad) > 0 {
						t.Fatalf("%d steps after the repairs: %v", steps, bad)
					}
				}
			})
			st = readState(t, b.conn, ns)
			var total, left int
			for j, raws := range given {
				for _, raw := range raws {
					total++
					if contains(st.queues[j], raw) {
						left++
					}
				}
			}
			for pool, ok := range st.set {
				if ok && !slices.Contains(sc.Live, pool) {
					t.Errorf("pool %s still in the set", pool)
				}
			}
			if left != 0 {
				t.Errorf("%d of the %d jobs given back still queued after 2 minutes", left, total)
			}
			if got := len(st.queues[sc.DriftJob]); got >= queuedBefore {
				t.Errorf("%s queue did not drain after the lock repair: %d -> %d", sc.DriftJob, queuedBefore, got)
			}
			t.Logf("%s: %d jobs given back, all taken; %s queue %d -> %d", name, total, sc.DriftJob, queuedBefore, len(st.queues[sc.DriftJob]))
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
