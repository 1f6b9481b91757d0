package tui

// This file owns the history view: u shows the actions of the journal
// (beside the audit log) that ran on this target and namespace, newest
// first, as `workq-tui history` lists them; enter shows what one changed
// (history_action.go) and U plans its undo (undo.go). It reads the journal
// when it opens, on r and after every action, and keeps the cursor on the
// action it was on.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// HistoryReader reads the journal of the screen's target and namespace;
// it reads files only, never Redis.
type HistoryReader interface {
	// History lists the actions of this target and namespace, newest
	// first.
	History(ctx context.Context) (HistoryList, error)
	// HistoryAction reads one action's journal, up to its last whole
	// record.
	HistoryAction(ctx context.Context, id string) (*journal.Action, error)
}

// HistoryList is the journal's actions of one target and namespace.
type HistoryList struct {
	// Dir is the journal's directory, as the history says where it read.
	Dir     string
	Actions []journal.Summary
	// Warnings name the files that could not be read at all.
	Warnings []string
}

// historyMsg carries a read of the history view view.
type historyMsg struct {
	view, seq int
	list      HistoryList
	err       error
}

func historyCmd(r HistoryReader, view, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		l, err := r.History(ctx)
		return historyMsg{view: view, seq: seq, list: l, err: err}
	}
}

// openHistory is u: the history pushed on the view on screen, or read
// again when it is on screen already.
func (m Model) openHistory() (Model, tea.Cmd) {
	return m.pushOrReread(historyView{id: m.views, km: m.keys, reader: m.rd.History, timeout: m.opts.FetchTimeout})
}

// rereads is the history on screen (top), when it is: it is read again
// rather than another pushed over it.
func (historyView) rereads(top view) (view, bool) {
	if t, ok := top.(historyView); ok {
		return t, true
	}
	return nil, false
}

// historyView is the list of the journal's actions.
type historyView struct {
	id      int
	km      keyMap
	reader  HistoryReader
	timeout time.Duration

	loader
	// read is the last read: its actions are the table's items, the
	// cursor kept on the same action across reads; the table's height is
	// the rows, height the body.
	read HistoryList
	table[journal.Summary]

	width, height int
}

func (historyView) title() string { return "history" }

func (h historyView) pickedAction() (journal.Summary, bool) { return h.current() }

func actionKey(a *journal.Summary) string { return a.ID }

// everyAction: the history has no filter.
func everyAction(*journal.Summary, string) bool { return true }

func (h historyView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case loadMsg:
		h.loader = h.start()
		return h, historyCmd(h.reader, h.id, h.seq, h.timeout)
	case historyMsg:
		return h.setList(msg), nil
	case tea.KeyMsg:
		h.table, _ = h.table.navigate(msg, h.km, actionKey)
		if key.Matches(msg, h.km.get(actions.Enter)) {
			if a, ok := h.pickedAction(); ok {
				return h, pushCmd(func(e openEnv) (view, string) {
					return newActionView(e.id, a, e.keys, e.rd.History, e.timeout), ""
				})
			}
		}
	}
	return h, nil
}

// setList takes a read, the cursor staying on the action it was on.
func (h historyView) setList(msg historyMsg) historyView {
	var ok bool
	if h.loader, ok = h.take(h.id, msg.view, msg.seq, msg.err); !ok || msg.err != nil {
		return h
	}
	h.read, h.items = msg.list, msg.list.Actions
	// The cursor stays on its action; on the newest when that is gone.
	if !slices.ContainsFunc(h.items, func(a journal.Summary) bool { return a.ID == h.selKey }) {
		h.table.list.cursor = 0
	}
	h.table = h.table.refilter(everyAction, actionKey)
	return h
}

// historyHeaderLines are the lines above the rows: where the journal is
// and the column titles.
const historyHeaderLines = 2

func (h historyView) rows() int { return max(h.height-historyHeaderLines, 1) }

func (h historyView) setSize(w, ht int) view {
	h.width, h.height = w, ht
	h.table = h.resize(h.rows())
	return h
}

// keys: enter shows what the action changed, esc goes back.
func (h historyView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, len(h.items) > 0)
	k.setHelp(actions.Enter, "enter", "what it changed")
	k.enable(actions.Filter, false)
	k.enable(actions.Back, true)
	k.setHelp(actions.Back, "esc", "back")
	return k
}

var historyColumnSpecs = []colSpec{
	{title: "ID", min: 19, max: 19},
	{title: "AGE", min: 5, max: 7, right: true},
	{title: "COMMAND", min: 14, max: 30},
	{title: "CALLS", min: 5, max: 5, right: true},
	{title: "DONE", min: 6, max: 8, right: true},
	{title: "STATE", min: 10},
}

func (h historyView) render(c renderContext) string {
	cols := fitColumns(historyColumnSpecs, h.width-cursorWidth)
	titles := make([]string, len(cols))
	for i, col := range cols {
		titles[i] = col.title
	}
	lines := []string{
		fitLine(h.statusLine(c.st), h.width),
		fitLine(c.st.colHeader.Render(strings.Repeat(" ", cursorWidth)+renderCells(cols, titles)), h.width),
	}
	from, to := h.table.list.window(len(h.items), h.rows())
	for i := from; i < to; i++ {
		a := h.items[i]
		cells := []string{textsafe.Clean(a.ID), model.FormatAge(c.now.Sub(a.Time)), textsafe.Clean(a.Command),
			strconv.Itoa(a.Calls), strconv.FormatInt(a.Done, 10), textsafe.Clean(a.State)}
		row := renderCells(cols, cells)
		if i == h.table.list.cursor {
			lines = append(lines, fitLine(c.st.selectRow(row), h.width))
		} else {
			lines = append(lines, fitLine("  "+row, h.width))
		}
	}
	if h.loaded && len(h.items) == 0 {
		lines = append(lines, c.st.faint.Render("  no action of this namespace in the journal yet"))
	}
	return fitBlock(strings.Join(lines, "\n"), h.width, h.height)
}

// statusLine says where the journal is and how many actions it holds, or
// why it could not be read.
func (h historyView) statusLine(st styles) string {
	switch {
	case h.err != nil:
		return st.statusErr.Render("could not read the journal: " + oneLine(h.err.Error()))
	case !h.loaded:
		return st.faint.Render("reading the journal…")
	}
	text := plural(len(h.items), "action", "actions") + ", newest first"
	if h.loading {
		text += st.faint.Render(" (reading…)")
	}
	if n := len(h.read.Warnings); n > 0 {
		text += st.warn.Render(fmt.Sprintf(" · %s unreadable", plural(n, "file", "files")))
	}
	return text + st.faint.Render(" · journal "+textsafe.Clean(h.read.Dir))
}
