package tui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A y that reaches Update before the dialog's clock has run does nothing
// but say so; the same y once the dialog has been on screen confirms. A
// dialog that goes off screen (the screen hidden, the terminal too small)
// must be on screen again for DialogReadTime.
func TestDialogAnswerCountsOnlyOnceRead(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
	m := newTest(t, o, 120, 30)
	update := func(m Model, msg tea.Msg) (Model, tea.Cmd) {
		next, cmd := m.Update(msg)
		return next.(Model), cmd
	}
	m, cmd := update(m, keyMsg("X"))
	var read dialogReadMsg
	for _, msg := range runCmd(cmd) {
		if s, ok := msg.(scheduled); ok {
			if r, ok := s.msg.(dialogReadMsg); ok && s.d == DialogReadTime {
				read = r
			}
		}
	}
	if !dialogOpen(m) || read.clock == 0 {
		t.Fatalf("X: dialog %v, no timer for its reading", dialogOpen(m))
	}
	if v := m.View(); strings.Contains(v, "y: run it") || !strings.Contains(v, "n/esc/q: cancel") {
		t.Fatalf("the dialog offers y before it was read:\n%s", v)
	}
	m, _ = update(m, keyMsg("y"))
	if !dialogOpen(m) || actionRunning(m) || !strings.Contains(statusOf(m), "y ignored") {
		t.Fatalf("y before the dialog was read: dialog %v, running %v, status %q", dialogOpen(m), actionRunning(m), statusOf(m))
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 15, Height: 4}) // too small: not on screen
	m, _ = update(m, read)
	m, _ = update(m, keyMsg("y"))
	if actionRunning(m) {
		t.Fatal("y confirmed a dialog the terminal was too small to draw")
	}
	m, cmd = update(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	var again dialogReadMsg
	for _, msg := range runCmd(cmd) {
		if s, ok := msg.(scheduled); ok {
			if r, ok := s.msg.(dialogReadMsg); ok {
				again = r
			}
		}
	}
	if again.clock == 0 || again.clock == read.clock {
		t.Fatalf("back on screen: clock %d, was %d", again.clock, read.clock)
	}
	m, _ = update(m, read) // the old clock's message counts for nothing
	m, _ = update(m, keyMsg("y"))
	if actionRunning(m) {
		t.Fatal("y confirmed on the clock of an earlier showing")
	}
	m, _ = update(m, again)
	if v := m.View(); !strings.Contains(v, "y: run it") {
		t.Fatalf("the dialog read does not offer y:\n%s", v)
	}
	m, cmd = update(m, keyMsg("y"))
	if dialogOpen(m) || !actionRunning(m) {
		t.Fatal("y after the dialog was read did not confirm it")
	}
	runCmd(cmd)
	if n := len(d.reaper.executed()); n != 1 {
		t.Fatalf("%d reaps, want 1", n)
	}
}

// Through a real program, each sequence in one write to its input: the
// dialog opens and the y of the same write is ignored, whatever key
// opened it (a burst, Enter on the command line, a control key bound to
// the action); a y written once the dialog has been read confirms it.
func TestDialogIgnoresYOfTheSameWrite(t *testing.T) {
	for _, tc := range []struct {
		name, write string
		bindings    map[string][]string
	}{
		{name: "burst", write: "gXy"},
		{name: "command line", write: ":reap-all\ry"},
		{name: "control key", write: "\x18y", bindings: map[string][]string{"reap_all": {"ctrl+x"}}},
		{name: "enter then y", write: "gX\x1b[Ay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, d := testOptions(staticSource(fixture()))
			o.Bindings = tc.bindings
			in, w := io.Pipe()
			defer func() { _ = w.Close() }()
			models := make(chan Model, 1000)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			p := tea.NewProgram(recorder{New(o), models}, tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithContext(ctx),
				tea.WithoutSignalHandler())
			done := make(chan error, 1)
			go func() { _, err := p.Run(); done <- err }()
			waitFor := func(what string, ok func(Model) bool) Model {
				t.Helper()
				for {
					select {
					case m := <-models:
						if ok(m) {
							return m
						}
					case <-ctx.Done():
						t.Fatalf("never: %s", what)
					}
				}
			}
			write := func(s string) {
				t.Helper()
				if _, err := w.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			waitFor("the first snapshot", func(m Model) bool { return drawnPools(m) > 0 })
			write(tc.write)
			m := waitFor("the dialog", func(m Model) bool { return dialogOpen(m) || actionRunning(m) })
			if actionRunning(m) {
				t.Fatalf("the y of %q confirmed a dialog that was never drawn", tc.write)
			}
			waitFor("the dialog read", func(m Model) bool { return strings.Contains(dialogText(m), "y: run it") })
			if n := len(d.reaper.executed()); n != 0 {
				t.Fatalf("%d reaps before a y written after the dialog", n)
			}
			write("y")
			waitFor("the reap done", func(m Model) bool { return !dialogOpen(m) && !actionRunning(m) && len(d.reaper.executed()) == 1 })
			write("q")
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-ctx.Done():
				t.Fatal("q did not end the program")
			}
		})
	}
}

// A dialog that opens while a fleet shows its own view over the screen
// (a plan that arrived after the operator went back) is not on screen:
// its clock starts when the screen is shown again, and a y before that
// does nothing.
func TestDialogOpenedHiddenCountsFromWhenShown(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
	m := newTest(t, o, 120, 30)
	m, _ = m.setHidden(true)
	next, cmd := m.Update(keyMsg("X"))
	m = next.(Model)
	for _, msg := range runCmd(cmd) {
		if s, ok := msg.(scheduled); ok {
			if _, ok := s.msg.(dialogReadMsg); ok {
				t.Fatal("a hidden dialog's clock started")
			}
		}
	}
	if !dialogOpen(m) {
		t.Fatal("X opened no dialog")
	}
	m, cmd = m.setHidden(false)
	var read dialogReadMsg
	for _, msg := range runCmd(cmd) {
		if s, ok := msg.(scheduled); ok {
			if r, ok := s.msg.(dialogReadMsg); ok {
				read = r
			}
		}
	}
	if read.clock == 0 {
		t.Fatal("shown again, the dialog's clock did not start")
	}
	next, _ = m.Update(keyMsg("y"))
	if m = next.(Model); actionRunning(m) {
		t.Fatal("y confirmed a dialog just shown again")
	}
	next, _ = m.Update(read)
	next, cmd = next.(Model).Update(keyMsg("y"))
	if m = next.(Model); !actionRunning(m) {
		t.Fatal("y after the dialog was read did not confirm it")
	}
	runCmd(cmd)
	if n := len(d.reaper.executed()); n != 1 {
		t.Fatalf("%d reaps, want 1", n)
	}
}
