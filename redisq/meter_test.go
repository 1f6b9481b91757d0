package redisq_test

import (
	"context"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestPollSaysWhatItCost: a poll's cost counts the commands Redis
// processed for it (INFO's own counter, on a Redis no one else uses), its
// round trips, and bytes and a wait that are not zero.
func TestPollSaysWhatItCost(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	randomState(t, c, rand.New(rand.NewSource(3)), false)
	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cl := redisq.NewDialerClient(d, "work", 0)
	defer cl.Close()
	ctx := context.Background()
	if _, err := cl.Poll(ctx, redisq.PollRequest{}); err != nil { // the pool's connection is dialled
		t.Fatal(err)
	}
	processed := func() int {
		info, err := redis.String(c.Do("INFO", "stats"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(l, "total_commands_processed:"); ok {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
		t.Fatal("no total_commands_processed")
		return 0
	}
	before := processed()
	snap, err := cl.Poll(ctx, redisq.PollRequest{Workers: true})
	if err != nil {
		t.Fatal(err)
	}
	after := processed()
	cost := snap.Cost
	if cost == nil {
		t.Fatal("the poll says nothing of its cost")
	}
	// after-before counts the poll's commands and the INFO that read before.
	if got := after - before - 1; cost.Commands != got {
		t.Errorf("the poll counted %d commands, Redis processed %d", cost.Commands, got)
	}
	if cost.RoundTrips < 1 || cost.RoundTrips > cost.Commands || cost.ReplyBytes <= 0 || cost.Waited <= 0 {
		t.Errorf("cost %+v", cost)
	}
}
