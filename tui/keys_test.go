package tui

import (
	"context"
	"io"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A burst of runes in one message is that many key presses.
func TestKeyBurstIsEveryKey(t *testing.T) {
	o, _ := testOptions(staticSource(manyPools(20)))
	m := newTest(t, o, 120, 30)
	m = step(t, m, keyMsg("jjj"))
	if c := cursorPool(m); c != manyPoolID(20, 3) {
		t.Fatalf("jjj in one message: cursor on %s, want the fourth pool", c)
	}
	m = step(t, m, keyMsg("kG"))
	if c := cursorPool(m); c != manyPoolID(20, 19) {
		t.Fatalf("kG in one message: cursor on %s, want the last pool", c)
	}
	m = step(t, m, keyMsg("/pool-1"))
	if text, editing := filterEditing(m); !editing || text != "pool-1" {
		t.Fatalf("/pool-1 in one message: filtering %v, filter %q", editing, text)
	}
}

// "Xy" in one message opens the dialog and does not confirm it: the y was
// typed before the dialog was on screen. A y in a later message confirms.
func TestConfirmCountsOnlyAfterTheDialogWasDrawn(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
	m := newTest(t, o, 120, 30)
	m, cmd := stepCmd(m, keyMsg("Xy"))
	runCmd(cmd)
	if actionRunning(m) || len(d.reaper.executed()) != 0 {
		t.Fatal("the y of Xy confirmed a dialog that was never drawn")
	}
	if !dialogOpen(m) {
		t.Fatal("Xy did not open the dialog")
	}
	_ = m.View()
	m, cmd = stepCmd(m, keyMsg("y"))
	if dialogOpen(m) || !actionRunning(m) {
		t.Fatal("y after the dialog was drawn did not confirm it")
	}
	runCmd(cmd)
	if len(d.reaper.executed()) != 1 {
		t.Fatalf("%d reaps, want 1", len(d.reaper.executed()))
	}
}

// recorder passes messages to the screen and reports each model it
// returns, so a test can wait for a state of a running program.
type recorder struct {
	Model
	models chan<- Model
}

func (r recorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := r.Model.Update(msg)
	m := next.(Model)
	r.models <- m
	return recorder{m, r.models}, cmd
}

// The same through a real program, each burst in one write to its input.
func TestKeyBurstInOneWrite(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
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
	write("jjj")
	fourth := fixture().Pools[3].ID
	waitFor("the cursor on the fourth pool", func(m Model) bool { return cursorPool(m) == fourth })
	write("gXy")
	m := waitFor("the reap dialog", func(m Model) bool { return dialogOpen(m) || actionRunning(m) })
	if actionRunning(m) {
		t.Fatal("the y of gXy confirmed a dialog that was never drawn")
	}
	write("n")
	waitFor("the dialog cancelled", func(m Model) bool { return !dialogOpen(m) })
	write("q")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("q did not end the program")
	}
	if n := len(d.reaper.executed()); n != 0 {
		t.Fatalf("%d reaps ran, want none", n)
	}
}
