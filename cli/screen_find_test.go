package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestScreenFinderIsFind: the screen's reader offers find, and for a job
// that is in a queue, a live pool's in-progress list, a dead pool's, a
// busy worker, the scheduled set with its unique key and the dead set, its
// places are the same as those `workq-tui find --json` prints.
func TestScreenFinderIsFind(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "mail")
	redistest.Do(t, c, "SADD", "work:worker_pools", "live", "gone")
	redistest.Do(t, c, "HSET", "work:worker_pools:live", "job_names", "mail", "heartbeat_at", now, "worker_ids", "w1")
	redistest.Do(t, c, "HSET", "work:worker_pools:gone", "job_names", "mail", "heartbeat_at", now-3600, "worker_ids", "w3")
	job := fmt.Sprintf(`{"name":"mail","id":"x1","t":%d,"args":{"order_id":"ord_1"},"unique":true}`, now-10)
	other := fmt.Sprintf(`{"name":"mail","id":"x2","t":%d,"args":{}}`, now-10)
	redistest.Do(t, c, "LPUSH", "work:jobs:mail", job, other, other)
	redistest.Do(t, c, "LPUSH", "work:jobs:mail:live:inprogress", job)
	redistest.Do(t, c, "LPUSH", "work:jobs:mail:gone:inprogress", other, job)
	redistest.Do(t, c, "ZADD", "work:scheduled", now+600, job)
	redistest.Do(t, c, "ZADD", "work:dead", now-100, job)
	redistest.Do(t, c, "SET", `work:unique:mail:{"order_id":"ord_1"}`+"\n", "1", "EX", 900)
	redistest.Do(t, c, "HSET", "work:worker:w1", "job_name", "mail", "job_id", "x1", "started_at", now-30, "args", `{"order_id":"ord_1"}`, "checkin_at", now-3)

	out, stderr, code := runCLI(t, input{}, "--redis="+srv.Addr(), "--read-only", "find", "--json", "x1")
	if code != 0 {
		t.Fatalf("find: exit %d: %s", code, stderr)
	}
	var want []map[string]any
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatalf("find --json: %v: %s", err, out)
	}
	if len(want) != 7 {
		t.Fatalf("find found %d places, want 7 (queue, 2 in-progress, scheduled, dead, worker, unique): %s", len(want), out)
	}

	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	client := redisq.NewDialerClient(d, "work", 0)
	defer client.Close()
	r := screenReadsOf(client, d, &target{namespace: "work"}, screenHistory{}, 0)
	f := r.Find
	if f == nil {
		t.Fatal("the screen's reads have no Finder")
	}
	places, err := f.Find(context.Background(), redisq.FindSpec{IDs: []string{"x1"}, Now: time.Unix(now, 0), Paced: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(places)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if ttl := func(ps []map[string]any) float64 { v, _ := ps[len(ps)-1]["ttl"].(float64); return v }; ttl(got) > 0 && ttl(want) > 0 {
		// The unique key's TTL runs down between the two reads.
		got[len(got)-1]["ttl"], want[len(want)-1]["ttl"] = nil, nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the screen's find:\n%s\nworkq-tui find:\n%s", b, out)
	}
}
