package variants_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/conformance/variants"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestQueueShowsTheJobThatRuns: gocraft/work master's and gojek's queue
// holds the first ByKey enqueue's stand-in while the unique key holds
// the refused second enqueue's job, the one a worker runs. `jobs queue`
// shows that job beside the stand-in, marked as such, in the table and
// in --json.
func TestQueueShowsTheJobThatRuns(t *testing.T) {
	for _, b := range builds {
		t.Run(b, func(t *testing.T) {
			runCLI := cliIn(t)
			srv := redistest.Start(t)
			c := srv.Dial()
			defer c.Close()
			s := variants.Read(t, b+"-queued.json")
			variants.Load(t, c, s, false)
			var standIn, held struct {
				ID   string          `json:"id"`
				Args json.RawMessage `json:"args"`
			}
			q := s.Key(t, "jobs:sync_account").List
			if len(q) != 1 || json.Unmarshal(q[0], &standIn) != nil {
				t.Fatalf("queue %q", q)
			}
			if err := json.Unmarshal(s.Key(t, "unique:sync_account:*").String, &held); err != nil || held.ID == standIn.ID {
				t.Fatalf("unique key holds %+v (%v), stand-in %s", held, err, standIn.ID)
			}
			out, stderr, code := runCLI("--redis", srv.Addr(), "-n", s.Namespace, "jobs", "queue", "sync_account")
			var runs string
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, "runs as") && strings.Contains(l, held.ID) {
					runs = l
				}
			}
			if code != 0 || runs == "" || !strings.Contains(out, standIn.ID) || !strings.Contains(runs, `"rev":2`) {
				t.Fatalf("jobs queue: exit %d, want the stand-in %s and the held job %s (rev 2) marked\n%s%s", code, standIn.ID, held.ID, out, stderr)
			}
			out, stderr, code = runCLI("--redis", srv.Addr(), "-n", s.Namespace, "jobs", "queue", "sync_account", "--json")
			var page struct {
				Jobs []struct {
					ID     string `json:"id"`
					RunsAs *struct {
						ID string `json:"id"`
					} `json:"runs_as"`
				} `json:"jobs"`
			}
			if err := json.Unmarshal([]byte(out), &page); err != nil || code != 0 || len(page.Jobs) != 1 || page.Jobs[0].RunsAs == nil || page.Jobs[0].RunsAs.ID != held.ID {
				t.Fatalf("jobs queue --json: exit %d %v\n%s%s", code, err, out, stderr)
			}
		})
	}
}
