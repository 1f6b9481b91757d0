package redisq

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// A find by id walks the keyspace once for the in-progress lists and the
// unique keys' values together (it walked it once for each), and finds in
// both what it found with a walk each.
func TestFindByIDWalksTheKeyspaceOnce(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	keys := NewKeys("work")
	job := `{"name":"sync","id":"a1","t":1700000000,"args":{"user":7}}`
	other := `{"name":"sync","id":"b2","t":1700000000,"args":{"user":8}}`
	for _, cmd := range [][]any{
		{"RPUSH", keys.InProgress("sync", "p1"), job},
		{"RPUSH", keys.InProgress("sync", "p2"), other},
		{"SET", keys.Prefix() + "unique:sync:{\"user\":7}\n", job},
		{"SET", keys.Prefix() + "unique:sync:{\"user\":8}\n", "1"},
		// The namespace's other keys, and another namespace's lists.
		{"HSET", keys.Prefix() + "worker:w1", "job_name", "sync"},
		{"RPUSH", keys.Prefix() + "jobs:inprogress", job},
		{"RPUSH", "other:jobs:sync:p1:inprogress", job},
		{"SET", "other:unique:sync:{\"user\":7}\n", job},
	} {
		redistest.Do(t, c, cmd[0].(string), cmd[1:]...)
	}
	for i := 0; i < 3000; i += 500 {
		args := []any{}
		for j := i; j < i+500; j++ {
			args = append(args, fmt.Sprintf("noise:%d", j), "x")
		}
		redistest.Do(t, c, "MSET", args...)
	}

	// One walk of the namespace's keys, as a script would make it.
	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	cursor := "0"
	for {
		v, err := redis.Values(c.Do("SCAN", cursor, "MATCH", "work:*", "COUNT", 1000))
		if err != nil {
			t.Fatal(err)
		}
		cursor, _ = redis.String(v[0], nil)
		if cursor == "0" {
			break
		}
	}
	onePass := redistest.CommandCalls(t, c)["scan"]

	find := func(in ...string) []Place {
		t.Helper()
		f := FindSpec{IDs: []string{"a1"}, Query: &model.Query{MinFails: -1, MaxFails: -1}, Now: time.Now()}
		if len(in) > 0 {
			f.In = map[string]bool{}
			for _, p := range in {
				f.In[p] = true
			}
		}
		places, err := Find(context.Background(), c, keys, f)
		if err != nil {
			t.Fatal(err)
		}
		return places
	}
	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	both := find(PlaceInProgress, PlaceUnique)
	if got := redistest.CommandCalls(t, c)["scan"]; got != onePass {
		t.Errorf("find by id ran %d SCAN calls, want %d: one walk of the keyspace", got, onePass)
	}
	alone := append(find(PlaceInProgress), find(PlaceUnique)...)
	describe := func(ps []Place) []string {
		var out []string
		for _, p := range ps {
			out = append(out, fmt.Sprintf("%s %s %s in-value=%v", p.Kind, p.Key, p.ID, p.InValue))
		}
		slices.Sort(out)
		return out
	}
	want := []string{
		"in-progress work:jobs:sync:p1:inprogress a1 in-value=false",
		"unique work:unique:sync:{\"user\":7}\n a1 in-value=true",
	}
	if got := describe(both); !slices.Equal(got, want) {
		t.Errorf("one walk found %q, want %q", got, want)
	}
	if got := describe(alone); !slices.Equal(got, want) {
		t.Errorf("a walk each found %q, want %q", got, want)
	}
}
