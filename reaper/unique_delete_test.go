package reaper

import (
	"context"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// The script deletes a unique key only while it holds the value the plan
// read: a refused enqueue that rewrote it in between (gocraft/work master)
// wins, and a key gone meanwhile is counted as such.
func TestDeleteUniqueRechecksTheValue(t *testing.T) {
	for _, tc := range []struct {
		name         string
		then         []any
		changed, abs int64
	}{
		{name: "rewritten", then: []any{"SET", "work:unique:digest:{\"n\":1}\n", `{"name":"digest","id":"b","t":2,"args":{}}`}, changed: 1},
		{name: "gone", then: []any{"DEL", "work:unique:digest:{\"n\":1}\n"}, abs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			c := srv.Dial()
			k := redisq.NewKeys("work")
			key := "work:unique:digest:{\"n\":1}\n"
			redistest.Do(t, c, "SET", key, `{"name":"digest","id":"a","t":1,"args":{}}`)
			r := onConn(c, k, 0)
			plan, err := r.PlanDeleteUnique(context.Background(), "digest", []string{`{"n":1}`})
			if err != nil || len(plan.Found()) != 1 || plan.Found()[0].Key != key || plan.Found()[0].PTTL != -1 {
				t.Fatalf("plan %+v, %v", plan, err)
			}
			redistest.Do(t, c, tc.then[0].(string), tc.then[1:]...)
			res, err := r.DeleteUnique(context.Background(), plan, nil)
			if err != nil || res.Changed != tc.changed || res.Absent != tc.abs || res.Deleted != 0 {
				t.Fatalf("result %+v, %v", res, err)
			}
			if tc.changed > 0 {
				if v, _ := redis.String(c.Do("GET", key)); !strings.Contains(v, `"id":"b"`) {
					t.Fatalf("the rewritten key is %q", v)
				}
			}
		})
	}
}
