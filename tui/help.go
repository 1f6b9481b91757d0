package tui

// This file owns the full help: ? pushes it on the view on screen, with
// every key that applies there and the views the digits jump to; esc or ?
// closes it. It reads nothing and shows no selection, so the actions'
// keys do nothing while it is open.

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/model"
)

// helpView is the full help of the keys km (those of the view it opened
// over, as they applied then), scrolled by top.
type helpView struct {
	km keyMap
	h  help.Model
	// cost says what the screen's last poll cost Redis ("" unknown).
	cost          string
	top           int
	width, height int
}

// newHelpView is the help of km, drawn with h's styles, under what the
// screen costs Redis.
func newHelpView(km keyMap, h help.Model, cost string) helpView {
	h.ShowAll = true
	km.set(actions.Back, closeHelp())
	return helpView{km: km, h: h, cost: cost}
}

// costLine says what the last poll cost Redis, as the client saw it, and
// how often the screen polls; "" when the poll did not measure it.
func costLine(snap *model.Snapshot, every time.Duration) string {
	if snap == nil || snap.Cost == nil {
		return ""
	}
	c := snap.Cost
	return fmt.Sprintf("this screen's last poll: %s in %s, %s of replies, %s waiting for Redis; one every %s",
		plural(c.Commands, "command", "commands"), plural(c.RoundTrips, "round trip", "round trips"),
		formatBytes(c.ReplyBytes), c.Waited.Round(100*time.Microsecond), model.FormatAge(every))
}

// closeHelp is esc in the help.
func closeHelp() key.Binding {
	return key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close help"))
}

// closedBy: ? on the help closes it.
func (helpView) closedBy(k keyMap) key.Binding { return k.get(actions.Help) }

func (helpView) title() string { return "help" }

// lines are the help's columns of keys, as many side by side as the width
// takes and the others below them, so that no key is cut off.
func (v helpView) lines() []string {
	h := v.h
	h.Width = 0
	var out, row []string
	if v.cost != "" {
		out = append(out, strings.Split(ansi.Wrap(v.cost, max(v.width, 20), ""), "\n")...)
		out = append(out, "")
	}
	rowWidth := 0
	flush := func() {
		if len(row) > 0 {
			for _, l := range strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, row...), "\n") {
				out = append(out, strings.TrimRight(l, " "))
			}
			out = append(out, "")
		}
		row, rowWidth = nil, 0
	}
	for _, group := range v.km.FullHelp() {
		col := h.FullHelpView([][]key.Binding{group})
		if strings.TrimSpace(col) == "" {
			continue
		}
		w := lipgloss.Width(col) + helpGap
		if rowWidth > 0 && rowWidth+w > v.width+helpGap {
			flush()
		}
		row = append(row, lipgloss.NewStyle().PaddingRight(helpGap).Render(col))
		rowWidth += w
	}
	flush()
	return out
}

// helpGap is the room between two columns of the help.
const helpGap = 4

func (v helpView) update(msg tea.Msg) (view, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		if top, ok := scrolled(v.top, km, v.km, len(v.lines()), v.height); ok {
			v.top = top
		}
	}
	return v, nil
}

func (v helpView) setSize(w, h int) view {
	v.width, v.height = w, h
	return v
}

// keys leaves the keys that move between views, scroll, close and quit;
// the actions of the view under it do nothing here.
func (helpView) keys(k keyMap) keyMap {
	off := []actions.ID{actions.Enter, actions.Filter, actions.Refresh, actions.NextSet, actions.SetsOrder, actions.Mark, actions.Summary,
		actions.SetsRequeue, actions.SetsDelete, actions.SetsEdit, actions.SetsDuplicate}
	for _, id := range off {
		k.enable(id, false)
	}
	for _, b := range actionBindings() {
		k.enable(b.id, false)
	}
	k.set(actions.Back, closeHelp())
	return k
}

func (v helpView) render(c renderContext) string {
	lines := v.lines()
	return fitBlock(strings.Join(lines[min(v.top, len(lines)):], "\n"), v.width, v.height)
}
