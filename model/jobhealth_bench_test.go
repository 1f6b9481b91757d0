package model

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkAssessJobs: 1,000 pools of 10 workers, 20 job types with jobs
// waiting, 10,000 failures in the hour: what judging the job health adds
// to a poll.
func BenchmarkAssessJobs(b *testing.B) {
	now := time.Unix(1_800_000_000, 0)
	var jobs []string
	for j := 0; j < 20; j++ {
		jobs = append(jobs, fmt.Sprintf("job%02d", j))
	}
	snap := &Snapshot{RedisTime: now}
	for p := 0; p < 1000; p++ {
		var ws []string
		for w := 0; w < 10; w++ {
			ws = append(ws, fmt.Sprintf("w%d-%d", p, w))
		}
		snap.Pools = append(snap.Pools, Pool{ID: fmt.Sprintf("p%04d", p), InProgress: map[string]int64{jobs[p%20]: 10},
			Heartbeat: &Heartbeat{HeartbeatAt: now.Unix(), Concurrency: 10, JobNames: jobs, WorkerIDs: ws}})
	}
	for _, j := range jobs {
		snap.JobTypes = append(snap.JobTypes, JobType{Name: j, Queued: 100, OldestEnqueuedAt: now.Add(-2 * time.Minute).Unix()})
	}
	Analyze(snap, DefaultDeadAfter)
	log := &FailureLog{Jobs: map[string][]Failure{}}
	for i := 0; i < 10_000; i++ {
		j := jobs[i%20]
		log.Jobs[j] = append(log.Jobs[j], Failure{At: now.Add(-time.Duration(10_000-i) * 360 * time.Millisecond).Unix(), Err: "boom"})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		AssessJobs(snap, HealthInput{Failures: log}, DefaultHealthLimits())
	}
}
