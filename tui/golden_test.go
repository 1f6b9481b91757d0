package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/workq-tui/workq-tui/model"
)

// runProgram runs the screen in teatest at a fixed size with a fake
// source and a frozen clock, waits for each text in turn (sending the keys
// before it), quits and returns the final View().
func runProgram(t *testing.T, o Options, w, h int, script ...any) string {
	t.Helper()
	return runModel(t, New(o), w, h, script...)
}

// runModel runs a model in teatest at a fixed size: each waitText of the
// script is waited for in turn, each func() called, each other message
// sent; then it quits
// and returns the final View().
func runModel(t *testing.T, m tea.Model, w, h int, script ...any) string {
	t.Helper()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	for _, s := range script {
		switch s := s.(type) {
		case waitText:
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
				teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
		case func():
			s()
		case tea.Msg:
			tm.Send(s)
		}
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View()
}

// waitText waits until the program's output holds the text.
type waitText string

func checkScreen(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("view has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := lineWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, n, w, l)
		}
		if strings.ContainsRune(l, '\x1b') {
			t.Errorf("line %d holds an escape sequence with an Ascii renderer: %q", i, l)
		}
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name     string
		w, h     int
		readOnly bool
		demo     bool
		script   []any
	}{
		{name: "pools", w: 120, h: 30, script: []any{waitText("worker-a")}},
		{name: "narrow", w: 80, h: 24, script: []any{waitText("worker-a")}},
		{name: "read_only", w: 100, h: 24, readOnly: true, script: []any{waitText("worker-a"), keyMsg("x"), keyMsg("X")}},
		{name: "demo", w: 100, h: 24, demo: true, script: []any{waitText("worker-a")}},
		{name: "detail", w: 100, h: 40, script: []any{waitText("worker-a"), keyMsg("j"), keyMsg("enter"), waitText("template")}},
		{name: "job_types", w: 120, h: 24, script: []any{waitText("worker-a"), keyMsg("tab"), waitText("LOCK/MAX")}},
		{name: "confirm_dialog", w: 100, h: 30, script: []any{waitText("worker-a"), keyMsg("X"), waitText("y: run it")}},
		{name: "filter", w: 100, h: 24, script: []any{waitText("worker-a"), keyMsg("/"), keyMsg("w"), keyMsg("o"), keyMsg("r"), keyMsg("k"), keyMsg("e"), keyMsg("r"), keyMsg("-"), keyMsg("d"), keyMsg("enter"), waitText("esc clears")}},
		{name: "full_help", w: 100, h: 24, script: []any{waitText("worker-a"), keyMsg("?"), waitText("page down")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := testOptions(staticSource(fixture()))
			o.ReadOnly, o.Demo = tc.readOnly, tc.demo
			view := runProgram(t, o, tc.w, tc.h, tc.script...)
			checkScreen(t, view, tc.w, tc.h)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// TestGoldenStale: Redis went away after one good poll; the screen keeps
// the data, marks it stale with its age and shows the error.
func TestGoldenStale(t *testing.T) {
	snap := fixture()
	src := &fakeSource{next: func(call int) (*model.Snapshot, error) {
		if call == 1 {
			return snap, nil
		}
		return nil, errRefused
	}}
	o, _ := testOptions(src)
	clock := fixedNow
	o.Now = func() time.Time { return clock }
	o.Interval = 2 * time.Second
	m := newTest(t, o, 100, 24)
	clock = fixedNow.Add(45 * time.Second)
	m, cmd := stepCmd(m, keyMsg("r"))
	for _, msg := range runCmd(cmd) {
		m = step(t, m, msg)
	}
	view := m.View()
	checkScreen(t, view, 100, 24)
	for _, want := range []string{"STALE, updated 45s ago", "error: dial tcp", "worker-a", "retry in 2s"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	golden.RequireEqual(t, []byte(view))
}
