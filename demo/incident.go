// The live incident: what is burning when the demo opens, besides the
// wreckage. The card gateway fails again (charge_card jobs die every few
// seconds, most with one error), and send_sms starves: the only pool that
// serves it has both workers stuck on build_statement jobs that stopped
// checking in long ago, while its queue has waited for minutes.

package demo

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"time"
)

const (
	// FailingJob fails from IncidentAgo before now: IncidentFailRate of
	// its jobs, IncidentError four times in five, each dying at once
	// (its pools register it with MaxFails 1).
	FailingJob       = "charge_card"
	IncidentAgo      = 100 * time.Second
	IncidentFailRate = 0.8
	IncidentError    = OutageError
	// StarvedJob waits behind StuckJob: the pool serving both has
	// StuckWorkers workers, all running StuckJob jobs that started
	// StuckAgo before the history's start and last checked in
	// StuckCheckinAgo before it; StarvedJob's oldest job was enqueued
	// StarvedAgo before the history's start.
	StarvedJob      = "send_sms"
	StuckJob        = "build_statement"
	StuckWorkers    = 2
	StuckAgo        = 14 * time.Minute
	StuckCheckinAgo = 12 * time.Minute
	StarvedAgo      = 11 * time.Minute
	starvedBacklog  = 40
)

// incidentSpecs are the job types of the starving pool.
func incidentSpecs() []*jobSpec {
	return []*jobSpec{
		{name: StarvedJob, priority: 1, perMinute: 6, minRun: 200 * time.Millisecond, maxRun: time.Second,
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"to": fmt.Sprintf("+1555%07d", r.Intn(10000000)), "template": pick(r, "otp", "delivery_update")}
			}},
		{name: StuckJob, priority: 1, perMinute: 0.2, minRun: 20 * time.Minute, maxRun: 40 * time.Minute,
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"account_id": 1000 + r.Intn(9000), "month": "2026-11"}
			}},
	}
}

// buildIncident schedules the incident; h is the history's start and
// newPool the scenario's. Its random choices come from a source of their
// own, so the rest of the scenario is as it was without it. It returns
// the pool whose workers are stuck, and what sets them to their stuck
// jobs, to be scheduled after the pools' starts and before their workers'
// first fetches.
func (s *Sim) buildIncident(h time.Time, newPool func(poolDef) *pool) (*pool, func()) {
	r := rand.New(rand.NewSource(s.seed ^ 0x696e6364))
	stuck := newPool(poolDef{concurrency: StuckWorkers, jobs: []string{StarvedJob, StuckJob}, age: 3 * time.Hour})
	s.at(h, func() error { return s.starvedBacklog(r) })
	startStuck := func() {
		for i, w := range stuck.workers {
			checkin := fmt.Sprintf("rendering page %d of 212", 37+i*11)
			s.at(h, func() error {
				return s.startStuckJob(w, StuckJob, StuckAgo-time.Duration(i)*time.Minute, 3*time.Hour, checkin, StuckCheckinAgo, r)
			})
		}
	}
	s.at(s.start.Add(-IncidentAgo), func() error {
		sp := s.specs[FailingJob]
		sp.failRate, sp.maxFails = IncidentFailRate, 1
		sp.errs = []string{IncidentError, IncidentError, IncidentError, IncidentError, "stripe: card_declined"}
		return nil
	})
	return stuck, startStuck
}

// starvedBacklog is StarvedJob's queue before the history: jobs enqueued
// from StarvedAgo before its start on, that no worker took.
func (s *Sim) starvedBacklog(r *rand.Rand) error {
	sp := s.specs[StarvedJob]
	var ts []int64
	for i := 0; i < starvedBacklog; i++ {
		ts = append(ts, s.now.Add(-StarvedAgo+time.Duration(r.Int63n(int64(StarvedAgo)))).Unix())
	}
	ts[0] = s.now.Add(-StarvedAgo).Unix()
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	for _, t := range ts {
		b := make([]byte, 12)
		r.Read(b)
		raw, err := json.Marshal(job{Name: sp.name, ID: fmt.Sprintf("%x", b), EnqueuedAt: t, Args: sp.args(r)})
		if err != nil {
			return fmt.Errorf("encode %s job: %w", sp.name, err)
		}
		if _, err := s.conn.Do("LPUSH", s.keys.Queue(sp.name), raw); err != nil {
			return fmt.Errorf("enqueue %s: %w", sp.name, err)
		}
	}
	_, err := s.conn.Do("SADD", s.keys.KnownJobs(), sp.name)
	return err
}
