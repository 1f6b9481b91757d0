package tui_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// d on a job's detail plans a copy of it with a new id onto its queue: n
// cancels the plan and nothing is written; y pushes the copy, the dead
// job stays where it is, and the audit log records the write.
func TestDriveJobDuplicate(t *testing.T) {
	t.Parallel()
	s, seed := deadJobsShown(t)
	s.Press("enter")
	s.Wait("one job · esc back", "m39")
	s.Press("d")
	s.WaitFor("the duplicate's plan", func(string) bool {
		return s.DialogTitle() == "Push a copy of job m39 onto work:jobs:mail?"
	})
	s.WaitFor("the dialog's offer", func(string) bool { return strings.Contains(s.DialogFooter(), "y: run it") })
	s.Press("n")
	s.WaitFor("the dialog closed", func(string) bool { return s.Dialog() == "" })
	s.Wait("one job · esc back")
	if n := seed.Int("LLEN", seed.K.Queue("mail")); n != 0 {
		t.Fatalf("n in the dialog pushed %d jobs", n)
	}
	s.Press("d")
	s.Wait("Push a copy of job m39")
	s.Confirm()
	s.WaitFor("the copy", func(string) bool { return seed.Int("LLEN", seed.K.Queue("mail")) == 1 })
	var job struct {
		Name string         `json:"name"`
		ID   string         `json:"id"`
		Args map[string]any `json:"args"`
	}
	raw, _ := seed.Do("LINDEX", seed.K.Queue("mail"), 0).([]byte)
	if err := json.Unmarshal(raw, &job); err != nil {
		t.Fatalf("the copy %q: %v", raw, err)
	}
	if job.Name != "mail" || job.ID == "" || job.ID == "m39" || job.Args["n"] != float64(1) {
		t.Errorf("the copy is %+v, want mail with args n=1 and a new id", job)
	}
	if n := seed.Int("ZCARD", seed.K.Dead()); n != 42 {
		t.Errorf("the dead set holds %d after a copy, want 42", n)
	}
	s.WaitFor("the audit line", func(string) bool {
		b, _ := os.ReadFile(s.Audit)
		line := string(b)
		return strings.Count(line, "\n") == 1 && strings.Contains(line, "action=jobs-duplicate") &&
			strings.Contains(line, `targets="set=dead,m39" moved=1`) && strings.Contains(line, "job "+job.ID+" is on work:jobs:mail")
	})
}
