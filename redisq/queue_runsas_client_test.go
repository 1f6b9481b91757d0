package redisq_test

import (
	"context"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestClientQueuePageRunsAs: the screen's page reads, plain and by query,
// say which job a ByKey stand-in runs as (the one its unique key
// holds), as `jobs queue` does; a job whose key holds itself says
// nothing.
func TestClientQueuePageRunsAs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	redistest.Do(t, c, "LPUSH", "work:jobs:sync_account",
		`{"name":"sync_account","id":"stand-in1","t":1,"args":{"acct":1},"unique":true,"unique_key":"work:unique:sync_account:a"}`,
		`{"name":"sync_account","id":"self2","t":2,"args":{"acct":2},"unique":true,"unique_key":"work:unique:sync_account:b"}`)
	redistest.Do(t, c, "SET", "work:unique:sync_account:a", `{"name":"sync_account","id":"rewritten9","t":3,"args":{"acct":1,"v":2}}`)
	redistest.Do(t, c, "SET", "work:unique:sync_account:b", `{"name":"sync_account","id":"self2","t":2,"args":{"acct":2}}`)
	cl := redisq.NewClient(redisq.OneConn(c), "work", 10*time.Second)
	check := func(name string, page redisq.QueuePage, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runs := map[string]string{}
		for _, j := range page.Jobs {
			if j.RunsAs != nil {
				runs[j.ID] = j.RunsAs.ID
			}
		}
		if len(runs) != 1 || runs["stand-in1"] != "rewritten9" {
			t.Errorf("%s: runs as %v, want stand-in1 as rewritten9 alone", name, runs)
		}
	}
	page, err := cl.QueuePage(context.Background(), "sync_account", 0, 20)
	check("page", page, err)
	q, err := model.ParseQuery(`args:"acct"`, model.QueryClock{Now: time.Now(), Zone: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	page, err = cl.QueueFilterPage(context.Background(), "sync_account", q, 0, 20)
	check("page by query", page, err)
}
