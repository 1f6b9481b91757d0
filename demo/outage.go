// The dead set's past: an outage of the card gateway an hour before now
// (a few minutes of charge_card jobs dying with a gateway timeout) among
// older unrelated failures, so that a query by time, error and arguments
// has something real to select.

package demo

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"time"
)

// The outage: OutageJobs charge_card jobs dying within OutageSpan, starting
// OutageAgo before the scenario's now.
const (
	OutageAgo   = 65 * time.Minute
	OutageSpan  = 4 * time.Minute
	OutageJobs  = 36
	OutageError = "stripe: POST /v1/charges: 504 gateway timeout"
	// DeployAgo is when the deploy before the outage started its pools.
	DeployAgo = 68 * time.Minute
	// olderDeaths are unrelated failures over the three days before.
	olderDeaths = 24
)

// seedDeadHistory writes the outage and the older deaths into the dead set,
// each job as gocraft/work leaves a dead job. Its random choices come from
// a source of their own, so the rest of the scenario is the same with or
// without it.
func (s *Sim) seedDeadHistory(seed int64) error {
	r := rand.New(rand.NewSource(seed ^ 0x6f757461))
	from := s.start.Add(-OutageAgo).Unix()
	args := []any{s.keys.Dead()}
	add := func(name string, died int64, errText string) error {
		sp := s.specs[name]
		b := make([]byte, 12)
		r.Read(b)
		j := job{Name: name, ID: fmt.Sprintf("%x", b), EnqueuedAt: died - int64(60+r.Intn(600)), Args: sp.args(r),
			Fails: maxFails, LastErr: errText, FailedAt: died}
		raw, err := json.Marshal(j)
		if err != nil {
			return fmt.Errorf("encode dead %s job: %w", name, err)
		}
		args = append(args, died, raw)
		return nil
	}
	span := int64(OutageSpan / time.Second)
	for i := 0; i < OutageJobs; i++ {
		if err := add("charge_card", from+int64(i)*span/OutageJobs, OutageError); err != nil {
			return err
		}
	}
	for i := 0; i < olderDeaths; i++ {
		name := s.scenario.JobNames[r.Intn(len(s.scenario.JobNames))]
		sp := s.specs[name]
		errText := "worker: panic: runtime error: index out of range"
		if len(sp.errs) > 0 {
			errText = sp.errs[r.Intn(len(sp.errs))]
		}
		died := s.start.Add(-2*time.Hour - time.Duration(r.Int63n(int64(70*time.Hour)))).Unix()
		if err := add(name, died, errText); err != nil {
			return err
		}
	}
	if _, err := s.conn.Do("ZADD", args...); err != nil {
		return fmt.Errorf("seed the dead set: %w", err)
	}
	return nil
}
