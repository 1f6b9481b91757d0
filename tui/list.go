package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// listState is a cursor over n rows shown in a window of height rows: the
// part every list view (pools, job types, ...) shares. Only the rows from
// offset to offset+height are ever rendered.
type listState struct {
	cursor, offset int
}

// clamp keeps the cursor on a row and the cursor inside the window.
func (l listState) clamp(n, height int) listState {
	if n <= 0 {
		return listState{}
	}
	height = max(height, 1)
	l.cursor = min(max(l.cursor, 0), n-1)
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+height {
		l.offset = l.cursor - height + 1
	}
	l.offset = min(max(l.offset, 0), max(n-height, 0))
	return l
}

// moveTo puts the cursor on row i.
func (l listState) moveTo(i, n, height int) listState {
	l.cursor = i
	return l.clamp(n, height)
}

// navigate applies a navigation key; ok is false for any other key.
func (l listState) navigate(msg tea.KeyMsg, k keyMap, n, height int) (listState, bool) {
	page := max(height-1, 1)
	switch {
	case key.Matches(msg, k.get(actions.Up)):
		return l.moveTo(l.cursor-1, n, height), true
	case key.Matches(msg, k.get(actions.Down)):
		return l.moveTo(l.cursor+1, n, height), true
	case key.Matches(msg, k.get(actions.PageUp)):
		l.offset -= page
		return l.moveTo(l.cursor-page, n, height), true
	case key.Matches(msg, k.get(actions.PageDown)):
		l.offset += page
		return l.moveTo(l.cursor+page, n, height), true
	case key.Matches(msg, k.get(actions.Top)):
		return l.moveTo(0, n, height), true
	case key.Matches(msg, k.get(actions.Bottom)):
		return l.moveTo(n-1, n, height), true
	}
	return l, false
}

// window is the range of rows to render.
func (l listState) window(n, height int) (from, to int) {
	from = min(l.offset, n)
	to = min(from+max(height, 0), n)
	return from, to
}

// scrolled is top moved by a navigation key over a text of lines lines
// shown height at a time: a line, a page (height-1 lines, one kept for
// context) or to an end; ok is false for any other key.
func scrolled(top int, msg tea.KeyMsg, k keyMap, lines, height int) (int, bool) {
	page := max(height-1, 1)
	switch {
	case key.Matches(msg, k.get(actions.Up)):
		top--
	case key.Matches(msg, k.get(actions.Down)):
		top++
	case key.Matches(msg, k.get(actions.PageUp)):
		top -= page
	case key.Matches(msg, k.get(actions.PageDown)):
		top += page
	case key.Matches(msg, k.get(actions.Top)):
		top = 0
	case key.Matches(msg, k.get(actions.Bottom)):
		top = lines
	default:
		return top, false
	}
	return min(max(top, 0), max(lines-height, 0)), true
}
