package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/editor"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// fakeEditor plans edits and copies of the fake sets' members and
// records what it ran; its editor is a script that changes "ops@" to "dev@".
type fakeEditor struct {
	f        *fakeSets
	script   string
	sessions []*editor.Session
	executed []reaper.EditPlan
}

func (e *fakeEditor) OpenEditor(text []byte) (*editor.Session, error) {
	s, err := editor.Open(func(k string) string {
		if k == "VISUAL" {
			return e.script
		}
		return ""
	}, "args.json", text)
	if err == nil {
		e.sessions = append(e.sessions, s)
	}
	return s, err
}

func (e *fakeEditor) member(set model.SetName, ref reaper.JobRef) model.SetJob {
	for _, sj := range e.f.sets[set] {
		if sj.Job != nil && sj.Job.ID == ref.ID {
			return sj
		}
	}
	return model.SetJob{}
}

func (e *fakeEditor) PlanEdit(_ context.Context, set model.SetName, ref reaper.JobRef, args []byte, _ bool) (reaper.EditPlan, error) {
	sj := e.member(set, ref)
	old, _ := model.ArgsOf(sj.Raw)
	n, err := model.ReplaceField(sj.Raw, "args", args)
	return reaper.EditPlan{Namespace: "work", Mode: reaper.EditReplace, SetKey: "work:" + string(set), Job: sj, OldArgs: old, NewArgs: args, New: n}, err
}

func (e *fakeEditor) PlanDuplicate(_ context.Context, set model.SetName, ref reaper.JobRef) (reaper.EditPlan, error) {
	sj := e.member(set, ref)
	old, _ := model.ArgsOf(sj.Raw)
	return reaper.EditPlan{Namespace: "work", Mode: reaper.EditCopy, SetKey: "work:" + string(set), QueueKey: "work:jobs:" + sj.Job.Name,
		Job: sj, OldArgs: old, NewArgs: old, NewID: "0123456789abcdef01234567"}, nil
}

func (e *fakeEditor) ExecuteEdit(_ context.Context, plan reaper.EditPlan) (reaper.EditResult, string, error) {
	e.executed = append(e.executed, plan)
	code := "e"
	if plan.Mode == reaper.EditCopy {
		code = "c"
	}
	return reaper.EditResult{Mode: plan.Mode, Code: code, Now: "1"}, "20261207T000000-edit01", nil
}

// TestJobDetailEditAndDuplicate: e on a job's detail opens the editor on
// its args; what the editor leaves is planned and shown with its diff in
// the dialog, and y runs it, with its audit line; d plans and runs a copy.
func TestJobDetailEditAndDuplicate(t *testing.T) {
	f := deadFixture()
	dir := t.TempDir()
	script := filepath.Join(dir, "ed")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsed -i 's/ops@/dev@/' \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	ed := &fakeEditor{f: f, script: script}
	o, d := setsOptions(f)
	o.Writes.Edit = ed
	m := newTest(t, o, 100, 40)
	m = drive(t, m, keys("shift+tab")...)
	m = drive(t, m, keys("j", "j", "j", "enter")...)
	v, ok := m.top().(setJobView)
	if !ok {
		t.Fatalf("no job detail on enter: %T", m.top())
	}
	if !strings.Contains(m.View(), "e edit args") && !strings.Contains(m.View(), "edit args") {
		t.Errorf("the detail's help does not offer e:\n%s", m.View())
	}

	m, cmd := sendSets(m, keyMsg("e"))
	if cmd == nil || len(ed.sessions) != 1 || statusOf(m) != "" {
		t.Fatalf("e: cmd %v, sessions %d, status %q", cmd != nil, len(ed.sessions), statusOf(m))
	}
	s := ed.sessions[0]
	shown, _ := s.Read()
	if !strings.Contains(string(shown), "\"to\": \"ops@example.com\"") {
		t.Errorf("the editor got %q, want the job's args indented", shown)
	}
	if err := s.Cmd.Run(); err != nil { // what tea.ExecProcess runs
		t.Fatal(err)
	}
	m = drive(t, m, jobEditedMsg{seq: m.actionSeq, session: s, set: v.set, job: v.job})
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Errorf("the edited file is left behind: %v", err)
	}
	view := m.View()
	if !dialogOpen(m) || !strings.Contains(view, "Edit the args of job") || !strings.Contains(view, `-   "to": "ops@example.com"`) || !strings.Contains(view, `+   "to": "dev@example.com"`) {
		t.Fatalf("no edit dialog with the diff:\n%s", view)
	}
	m = drive(t, m, keys("y")...)
	if len(ed.executed) != 1 || ed.executed[0].Mode != reaper.EditReplace || !strings.Contains(string(ed.executed[0].New), `"to":"dev@example.com"`) {
		t.Fatalf("executed %+v", ed.executed)
	}
	if len(d.audit.entries) != 1 || d.audit.entries[0].Action != string(actionJobsEdit) || d.audit.entries[0].Journal != "20261207T000000-edit01" {
		t.Errorf("audit %+v", d.audit.entries)
	}

	m = drive(t, m, keys("enter", "d")...)
	if !dialogOpen(m) || !strings.Contains(m.View(), "Push a copy of job") {
		t.Fatalf("no duplicate dialog:\n%s", m.View())
	}
	drive(t, m, keys("y")...)
	if len(ed.executed) != 2 || ed.executed[1].Mode != reaper.EditCopy {
		t.Fatalf("executed %+v", ed.executed)
	}
}

// TestJobDetailEditReadOnly: under --read-only e and d do nothing but say so.
func TestJobDetailEditReadOnly(t *testing.T) {
	f := deadFixture()
	ed := &fakeEditor{f: f, script: "true"}
	o, _ := setsOptions(f)
	o.Writes.Edit = ed
	o.ReadOnly = true
	m := newTest(t, o, 100, 40)
	m = drive(t, m, keys("shift+tab")...)
	m = drive(t, m, keys("j", "j", "j", "enter", "e", "d")...)
	if len(ed.sessions) != 0 || dialogOpen(m) || !strings.Contains(statusOf(m), "read-only") {
		t.Errorf("read-only: sessions %d, dialog %v, status %q", len(ed.sessions), dialogOpen(m), statusOf(m))
	}
}
