package variants_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/conformance/variants"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestFindJobInUniqueKeyValue: after a refused EnqueueUniqueByKey, the job
// that will run is only in the unique key's value; find by its id finds it
// there (it said "no job found" and exited 4), and the stand-in is still
// found in the queue.
func TestFindJobInUniqueKeyValue(t *testing.T) {
	runCLI := cliIn(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	for _, b := range builds {
		t.Run(b, func(t *testing.T) {
			s := variants.Read(t, b+"-queued.json")
			variants.Load(t, c, s, false)
			uk := s.Key(t, "unique:sync_account:*")
			var held, standIn struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(uk.String, &held); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(s.Key(t, "jobs:sync_account").List[0], &standIn); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := runCLI("--redis", srv.Addr(), "-n", s.Namespace, "find", held.ID, "--json")
			var places []struct {
				Place   string `json:"place"`
				Key     string `json:"key"`
				ID      string `json:"id"`
				InValue bool   `json:"in_value"`
			}
			if err := json.Unmarshal([]byte(out), &places); err != nil || code != 0 {
				t.Fatalf("find %s: exit %d, %v\n%s\n%s", held.ID, code, err, out, stderr)
			}
			if len(places) != 1 || places[0].Place != "unique" || places[0].Key != uk.Key || places[0].ID != held.ID || !places[0].InValue {
				t.Errorf("places %+v, want the unique key holding %s", places, held.ID)
			}
			out, _, code = runCLI("--redis", srv.Addr(), "-n", s.Namespace, "find", "--wide", held.ID)
			if code != 0 || !strings.Contains(out, "holds it: it runs, with these arguments, when a worker takes the stand-in") {
				t.Errorf("find %s: exit %d\n%s", held.ID, code, out)
			}
			out, _, code = runCLI("--redis", srv.Addr(), "-n", s.Namespace, "find", standIn.ID)
			if code != 0 || !strings.Contains(out, "queue") {
				t.Errorf("find %s (the stand-in): exit %d\n%s", standIn.ID, code, out)
			}
		})
	}
}
