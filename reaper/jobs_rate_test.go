package reaper

import (
	"context"
	"math/rand"
	"testing"
	"time"
)

// Calls paced at 100 jobs a second, two in flight, each run at a random
// moment between its send and its reply (as Redis does, late by a random
// delay): the jobs run within any second never pass 100.
func TestPacerBoundsEverySecond(t *testing.T) {
	const rate, batch = 100, 10
	calls := 30 // three seconds
	if testing.Short() {
		calls = 20 // the loop between edits; make test runs the three seconds
	}
	p := &pacer{rate: rate}
	r := rand.New(rand.NewSource(1))
	type call struct{ sent time.Time }
	var done []time.Time
	var flight []call
	reply := func() {
		c := flight[0]
		flight = flight[1:]
		// It runs between its send and now.
		now := time.Now()
		ran := c.sent.Add(time.Duration(r.Int63n(int64(now.Sub(c.sent)) + 1)))
		if len(done) > 0 && ran.Before(done[len(done)-1]) {
			ran = done[len(done)-1] // one connection: calls run in order
		}
		done = append(done, ran)
		p.done(batch)
	}
	start := time.Now()
	for i := 0; i < calls; i++ {
		for len(flight) >= 2 || (len(flight) > 0 && p.full(batch)) {
			reply()
		}
		if err := p.wait(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
		flight = append(flight, call{sent: time.Now()})
		time.Sleep(time.Duration(r.Intn(40)) * time.Millisecond)
	}
	for len(flight) > 0 {
		reply()
	}
	for i := range done {
		n := 0
		for j := i; j < len(done) && done[j].Sub(done[i]) < time.Second; j++ {
			n += batch
		}
		if n > rate {
			t.Fatalf("%d jobs ran within a second from call %d", n, i)
		}
	}
	// And the pace is kept: 300 jobs at 100 a second take about 2 s (the
	// first second's share goes at once), 200 about 1 s.
	if took := time.Since(start); took < time.Duration(calls*batch-rate)*time.Second/rate-100*time.Millisecond {
		t.Fatalf("%d jobs at %d a second took %v", calls*batch, rate, took)
	}
}
