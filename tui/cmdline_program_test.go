package tui

import (
	"strings"
	"testing"
)

// TestCmdLineInTheProgram drives the command line through the bubbletea
// program (teatest): ":jobs dead" shows the Jobs view on the dead set,
// ":find ID" opens the find result, tab completes a job type's name and a
// dead pool's ID, and in read-only mode reap is not offered.
func TestCmdLineInTheProgram(t *testing.T) {
	t.Run("jobs dead", func(t *testing.T) {
		o, _ := setsOptions(deadFixture())
		view := runProgram(t, o, 100, 30, waitText("worker-a"),
			keyMsg(":"), keyMsg("jobs dead"), keyMsg("enter"), waitText("i/o timeout"))
		if !strings.Contains(view, "[Jobs]") || !strings.Contains(view, "[dead 45]") {
			t.Errorf("the dead set is not on screen:\n%s", view)
		}
	})
	t.Run("tab completes a job name", func(t *testing.T) {
		o, _ := setsOptions(deadFixture())
		view := runProgram(t, o, 100, 30, waitText("worker-a"),
			keyMsg(":"), keyMsg("jobtypes res"), keyMsg("tab"), waitText(":jobtypes resize_image"))
		if !strings.Contains(view, ":jobtypes resize_image") {
			t.Errorf("no completed name on the line:\n%s", view)
		}
	})
	t.Run("tab completes a dead pool", func(t *testing.T) {
		o, _ := setsOptions(deadFixture())
		view := runProgram(t, o, 100, 30, waitText("worker-a"),
			keyMsg(":"), keyMsg("reap aa"), keyMsg("tab"), waitText(":reap aaaabbbbccccddddeeeeffff"),
			keyMsg("enter"), waitText("Reap 1 dead pool?"), waitText("y: run it"))
		if !strings.Contains(view, "y: run it") {
			t.Errorf("the reap dialog is not on screen:\n%s", view)
		}
	})
	t.Run(":find and an id open the find result", func(t *testing.T) {
		f := deadFixture()
		o, _ := findOptions(f, &fakeFinder{places: placesOf(f)})
		view := runProgram(t, o, 100, 30, waitText("worker-a"),
			keyMsg(":"), keyMsg("find se05"), keyMsg("enter"), waitText("5 places"))
		if !strings.Contains(view, "unique key blocks") || !strings.Contains(view, "queue, 17 run before it") {
			t.Errorf("the find result is not on screen:\n%s", view)
		}
	})
	t.Run("read-only offers no reap", func(t *testing.T) {
		o, _ := setsOptions(deadFixture())
		o.ReadOnly = true
		view := runProgram(t, o, 100, 30, waitText("worker-a"),
			keyMsg(":"), keyMsg("rea"), keyMsg("tab"), keyMsg("p"), keyMsg("enter"), waitText("read-only: reap is disabled"))
		if strings.Contains(view, "y: run it") {
			t.Errorf("read-only opened a dialog:\n%s", view)
		}
	})
}
