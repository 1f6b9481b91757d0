package demo

import (
	"context"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// After Init the incident burns, as the program judges it with its
// default thresholds: charge_card failing with the gateway's error on
// top, send_sms starving behind the stuck build_statement workers.
func TestIncidentAtStart(t *testing.T) {
	for _, seed := range []int64{1, 2, 7} {
		b := realBackend(t)
		s := New(b.conn, Options{Seed: seed, Now: b.now})
		ctx := context.Background()
		if err := s.Init(ctx); err != nil {
			t.Fatal(err)
		}
		snap, err := redisq.ReadSnapshot(ctx, b.conn, "work", model.DefaultDeadAfter)
		if err != nil {
			t.Fatal(err)
		}
		snap.RedisTime = b.now
		if err := redisq.NewHealthTracker("work", model.DefaultHealthLimits()).Assess(ctx, b.conn, snap); err != nil {
			t.Fatal(err)
		}
		has := map[string]bool{}
		for _, p := range snap.Jobs.Problems {
			has[p.Job+" "+p.Kind] = true
		}
		if !has[FailingJob+" "+model.FindingFailing] || !has[StarvedJob+" "+model.FindingStarving] || !has[StuckJob+" "+model.FindingStuck] {
			t.Fatalf("seed %d: problems %+v", seed, snap.Jobs.Problems)
		}
		p := snap.Jobs.Problems[0]
		if p.Job != FailingJob || len(p.Errors) == 0 || p.Errors[0].Err != model.NormalizeError(IncidentError) {
			t.Errorf("seed %d: the worst problem %+v", seed, p)
		}
		if st := snap.Jobs.Of(StarvedJob)[0]; !strings.Contains(st.Short, "waiting 1") || !strings.Contains(st.Detail, StuckJob+" x2") {
			t.Errorf("seed %d: starving %+v", seed, st)
		}
	}
}
