package tui

import (
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// firstSGR is the parameters of the first colour sequence a line draws
// ("1;38;5;9"), "" when it draws none.
func firstSGR(line string) string {
	if m := regexp.MustCompile("\x1b\\[([0-9;]*)m").FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// TestStatusErrorDrawnApart: on a colour terminal, a failed action's status
// is drawn in bold and another colour than a done action's, so that a
// failure is told from a success at a glance.
func TestStatusErrorDrawnApart(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	o.Renderer = r
	m := newTest(t, o, 120, 30)
	// reap presses X, lets the dialog's read timer fire (the helpers that
	// do it read plain text), presses y and returns the status line, as
	// text and as drawn.
	reap := func() (text, drawn string) {
		t.Helper()
		var cmd tea.Cmd
		m, cmd = stepCmd(m, keyMsg("X"))
		read := false
		for _, msg := range runCmd(cmd) {
			if s, ok := msg.(scheduled); ok && s.d == DialogReadTime {
				m, read = step(t, m, s.msg), true
			}
		}
		if !read {
			t.Fatal("X armed no dialog read timer")
		}
		m, cmd = stepCmd(m, keyMsg("y"))
		m, _ = deliver(t, m, cmd)
		lines := strings.Split(m.View(), "\n")
		drawn = lines[len(lines)-2]
		return strings.TrimSpace(ansi.Strip(drawn)), drawn
	}
	okText, okLine := reap()
	d.reaper.err = errors.New("redis at x: connection reset")
	badText, badLine := reap()
	if !strings.Contains(okText, "reaped 2 pools") || !strings.HasPrefix(badText, "failed: redis at x: connection reset") {
		t.Fatalf("statuses %q and %q", okText, badText)
	}
	okSGR, badSGR := firstSGR(okLine), firstSGR(badLine)
	bold := func(sgr string) bool { return slices.Contains(strings.Split(sgr, ";"), "1") }
	if badSGR == "" || badSGR == okSGR || !bold(badSGR) || bold(okSGR) {
		t.Fatalf("the failure is drawn with %q, the success with %q: want bold and another colour", badSGR, okSGR)
	}
}
