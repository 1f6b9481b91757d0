package sets_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestMain(m *testing.M) { os.Exit(redistest.Main(m)) }

// cliRow is what both sides list of a dead job.
type cliRow struct {
	ID     string
	DiedAt int64
	Name   string
	Fails  int64
	Err    string
	Args   string
}

// TestJobsDeadJSONEqualsUpstreamPages pages `workq-tui jobs dead --json`
// to the end and compares it with every page of upstream's
// Client.DeadJobs: the same jobs, scores and counts, in reverse order (ours
// lists the most recent death first, upstream the oldest), and our args
// are the stored bytes.
func TestJobsDeadJSONEqualsUpstreamPages(t *testing.T) {
	srv := redistest.Start(t)
	buildState(t, srv)
	bin := redistest.Binary(t)
	client := work.NewClient(ns, gcstate.RedisPool(t, srv.Addr()))
	c := srv.Dial()

	var up []cliRow
	var upCount int64
	for page := uint(1); ; page++ {
		js, count, err := client.DeadJobs(page)
		if err != nil {
			t.Fatal(err)
		}
		upCount = count
		if len(js) == 0 {
			break
		}
		for _, j := range js {
			args, _ := json.Marshal(j.Args)
			up = append(up, cliRow{j.ID, j.DiedAt, j.Name, j.Fails, j.LastErr, string(args)})
		}
	}
	var ours []cliRow
	pages := 0
	for offset := 0; ; offset += 20 {
		r := redistest.Run(t, bin, nil, "--redis", srv.Addr(), "-n", ns, "jobs", "dead", "--json", "--offset", fmt.Sprint(offset))
		if r.Code != 0 {
			t.Fatalf("jobs dead --json: exit %d: %s", r.Code, r.Stderr)
		}
		var page struct {
			Count int64 `json:"count"`
			Jobs  []struct {
				ID     string          `json:"id"`
				DiedAt int64           `json:"died_at"`
				Name   string          `json:"name"`
				Fails  int64           `json:"fails"`
				Err    string          `json:"err"`
				Args   json.RawMessage `json:"args"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &page); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, r.Stdout)
		}
		if page.Count != upCount {
			t.Fatalf("count %d, upstream %d", page.Count, upCount)
		}
		if len(page.Jobs) == 0 {
			break
		}
		pages++
		for _, j := range page.Jobs {
			// Compared through a decode, as upstream decodes args; the
			// stored bytes are checked below.
			var a map[string]any
			if err := json.Unmarshal(j.Args, &a); err != nil {
				t.Fatal(err)
			}
			norm, _ := json.Marshal(a)
			ours = append(ours, cliRow{j.ID, j.DiedAt, j.Name, j.Fails, j.Err, string(norm)})
			raw := rawMember(t, c, j.ID)
			if !strings.Contains(raw, `"args":`+string(j.Args)) {
				t.Errorf("job %s: args %s are not the stored bytes %s", j.ID, j.Args, raw)
			}
		}
	}
	for i, k := 0, len(ours)-1; i < k; i, k = i+1, k-1 {
		ours[i], ours[k] = ours[k], ours[i]
	}
	if pages < 3 || len(up) != int(upCount) || !reflect.DeepEqual(ours, up) {
		t.Fatalf("%d pages; ours (reversed) and upstream differ:\nours     %v\nupstream %v", pages, ours, up)
	}
}

// rawMember is the stored bytes of the dead job with an id.
func rawMember(t *testing.T, c redis.Conn, id string) string {
	t.Helper()
	all, err := redis.Strings(c.Do("ZRANGE", ns+":dead", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if strings.Contains(m, `"id":"`+id+`"`) {
			return m
		}
	}
	t.Fatalf("no dead member with id %s", id)
	return ""
}
