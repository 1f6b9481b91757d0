package tui

// This file is the table of the command line's commands: each opens the
// same view, or the same dialog through the actions table (bindings.go),
// as its key, so a write still shows its plan and waits for y, and a
// command that does nothing here says why as its key would.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// command is one command of the command line.
type command struct {
	name    string
	aliases []string
	// action is the action the command runs (through the actions
	// table); nil for a command that opens a view.
	action *actions.ID
	// args completes the command's argument; nil when it takes none.
	args func(m Model) []string
	// needs says why the command is not there ("" when it is); it is then
	// not offered, and says so when typed.
	needs func(m Model) string
	run   func(m Model, args []string) (Model, tea.Cmd)
}

func (m Model) commands() []command {
	noJobs := func(m Model) string {
		if m.setsTab() < 0 {
			return "the Jobs view is not available here"
		}
		return ""
	}
	sets := func(Model) []string {
		out := make([]string, len(jobSets))
		for i, s := range jobSets {
			out[i] = string(s)
		}
		return out
	}
	noFinder := func(m Model) string {
		if m.rd.Find == nil {
			return "find is not available here"
		}
		return ""
	}
	jobTerms := func(m Model) []string {
		var out []string
		for _, n := range m.savedQueryNames() {
			out = append(out, "@"+n)
		}
		for _, n := range m.jobNames() {
			out = append(out, "job:"+n)
		}
		return out
	}
	return []command{
		{name: "pools", args: Model.poolIDs, run: func(m Model, a []string) (Model, tea.Cmd) { return m.showPool(a) }},
		{name: "jobtypes", aliases: []string{"job-types", "types"}, args: Model.jobNames, run: func(m Model, a []string) (Model, tea.Cmd) { return m.showJobType(a) }},
		{name: "orphans", run: func(m Model, _ []string) (Model, tea.Cmd) { return m.showTab("Orphans"), nil }},
		{name: "workers", run: func(m Model, _ []string) (Model, tea.Cmd) { return m.showTab("Workers"), nil }},
		{name: "jobs", args: sets, needs: noJobs, run: Model.showJobs},
		{name: "where", args: jobTerms, needs: noJobs, run: Model.where},
		{name: "find", args: func(Model) []string { return nil }, needs: noFinder, run: Model.find},
		{name: "reap", action: act(actions.Reap), args: Model.deadPoolIDs,
			run: func(m Model, a []string) (Model, tea.Cmd) { return m.showPool(a) }},
		{name: "reap-all", action: act(actions.ReapAll)},
		{name: "requeue", action: act(actions.Requeue)},
		{name: "repair", action: act(actions.RepairLocks), args: Model.jobNames,
			run: func(m Model, a []string) (Model, tea.Cmd) { return m.showJobType(a) }},
		{name: "pause", action: act(actions.Pause), args: Model.jobNames,
			run: func(m Model, a []string) (Model, tea.Cmd) { return m.showJobType(a) }},
		{name: "throttle", args: Model.jobNames, needs: Model.throttleUnavailable,
			run: func(m Model, a []string) (Model, tea.Cmd) { return m.throttleCommand(a) }},
		{name: "history", action: act(actions.History)},
		{name: "undo", action: act(actions.Undo)},
		{name: "explain", args: Model.jobNames, run: Model.explainCommand},
		{name: "copy", args: func(Model) []string { return []string{"command"} }, run: Model.copyCommand},
		{name: "timeline", args: timelineSinces, needs: noTimeline, run: Model.timelineCommand},
		targetCommand(),
		{name: "refresh", run: func(m Model, _ []string) (Model, tea.Cmd) { return m.pressBinding(m.keys.get(actions.Refresh)) }},
		{name: "help", run: func(m Model, _ []string) (Model, tea.Cmd) { return m.pressBinding(m.keys.get(actions.Help)) }},
		{name: "quit", aliases: []string{"q"}, run: func(m Model, _ []string) (Model, tea.Cmd) { return m.pressBinding(m.keys.get(actions.Quit)) }},
	}
}

// act is the action id of a command that runs it.
func act(id actions.ID) *actions.ID { return &id }

// binding is the entry of the actions table the command runs, if any.
func (c command) binding() (actionBinding, bool) {
	if c.action == nil {
		return actionBinding{}, false
	}
	for _, b := range actionBindings() {
		if b.id == *c.action {
			return b, true
		}
	}
	return actionBinding{}, false
}

// unavailable is why the command is not there at all: a write in
// read-only mode, a view the screen does not have.
func (c command) unavailable(m Model) string {
	if b, ok := c.binding(); ok && b.write != nil && m.opts.ReadOnly {
		return "read-only: " + c.name + " is disabled"
	}
	if c.needs != nil {
		return c.needs(m)
	}
	return ""
}

// offered reports whether completion offers the command.
func (c command) offered(m Model) bool { return c.unavailable(m) == "" }

// command finds a command by its name or an alias.
func (m Model) command(name string) (command, bool) {
	for _, c := range m.commands() {
		if c.name == name {
			return c, true
		}
		for _, a := range c.aliases {
			if a == name {
				return c, true
			}
		}
	}
	return command{}, false
}

// runCommand runs one line of the command line; what goes wrong is one
// line in the status line.
func (m Model) runCommand(line string) (Model, tea.Cmd) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return m, nil
	}
	c, ok := m.command(fields[0])
	if !ok {
		msg := fmt.Sprintf("unknown command %q", textsafe.Clean(fields[0]))
		if s := m.suggestCommand(fields[0]); s != "" {
			msg += " (did you mean " + s + "?)"
		}
		return m.setStatus(msg, true)
	}
	if r := c.unavailable(m); r != "" {
		return m.setStatus(r, true)
	}
	args := fields[1:]
	if c.name == "requeue" && len(args) > 0 {
		return m.requeueWithRate(args)
	}
	if c.args == nil && len(args) > 0 {
		return m.setStatus(fmt.Sprintf(":%s takes no argument", c.name), true)
	}
	wholeLine := c.name == "where" || c.name == "find" || c.name == "throttle"
	if !wholeLine && len(args) > 1 {
		return m.setStatus(fmt.Sprintf(":%s takes one argument", c.name), true)
	}
	if wholeLine {
		args = []string{strings.TrimSpace(strings.TrimPrefix(line, fields[0]))}
	}
	var cmd tea.Cmd
	// An action's argument selects what it acts on first; without one it
	// takes what is selected, as its key does.
	if c.run != nil && (c.action == nil || len(args) > 0) {
		if m, cmd = c.run(m, args); m.status.isErr {
			return m, cmd
		}
	}
	b, ok := c.binding()
	if !ok {
		return m, cmd
	}
	t, r := b.check(m)
	if r != "" {
		mm, clear := m.setStatus(r, false)
		return mm, tea.Batch(cmd, clear)
	}
	mm, run := b.run(m, t)
	return mm, tea.Batch(cmd, run)
}

// suggestCommand is the command closest to name: one it starts, or one a
// typo away; "" when none is close.
func (m Model) suggestCommand(name string) string {
	best, bestD := "", 3
	for _, c := range m.commands() {
		if !c.offered(m) {
			continue
		}
		for _, n := range append([]string{c.name}, c.aliases...) {
			d := model.EditDistance(name, n)
			if strings.HasPrefix(n, name) && len(name) >= 2 {
				d = 1
			}
			if d < bestD {
				best, bestD = c.name, d
			}
		}
	}
	return best
}

// pressBinding does what the binding's key does.
func (m Model) pressBinding(b key.Binding) (Model, tea.Cmd) {
	for _, k := range b.Keys() {
		if r := []rune(k); len(r) == 1 {
			return m.oneKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: r})
		}
	}
	return m, nil
}

// showTab focuses the tab of that title, leaving what is pushed on the
// focused one (as tab does).
func (m Model) showTab(title string) Model {
	for i, v := range m.tabs {
		if v.title() == title {
			m.stack = nil
			m.tab = i
		}
	}
	return m
}

// showPool focuses the Pools view, on the pool of that ID when one is
// given.
func (m Model) showPool(args []string) (Model, tea.Cmd) {
	m = m.showTab("Pools")
	if len(args) == 0 {
		return m, nil
	}
	return m.selectIn(args[0], "pool")
}

// showJobType focuses the Job types view, on the job type of that name
// when one is given.
func (m Model) showJobType(args []string) (Model, tea.Cmd) {
	m = m.showTab("Job types")
	if len(args) == 0 {
		return m, nil
	}
	return m.selectIn(args[0], "job type")
}

// selectIn puts the focused list's cursor on the row of k (a what), or
// says there is none.
func (m Model) selectIn(k, what string) (Model, tea.Cmd) {
	s, ok := m.focused().(keySelector)
	if !ok {
		return m, nil
	}
	if v, ok := s.selectKey(k); ok {
		return m.setFocused(v), nil
	}
	return m.setStatus(fmt.Sprintf("no %s %s", what, textsafe.Clean(k)), true)
}

// showJobs focuses the Jobs view, on the set given, and reads its page
// when the set changed or nothing was read yet.
func (m Model) showJobs(args []string) (Model, tea.Cmd) {
	if len(args) == 0 {
		return m.showJobsView(showJobsMsg{})
	}
	for _, s := range jobSets {
		if string(s) == args[0] {
			return m.showJobsView(showJobsMsg{set: s})
		}
	}
	return m.setStatus(fmt.Sprintf("no set %q: retry, scheduled or dead", textsafe.Clean(args[0])), true)
}

// where is the Jobs view's filter from a query. The view filters its set
// by one job name, so a query is taken when it is one job:NAME term (or
// empty, which clears the filter); any other term is refused with the
// command that runs it.
func (m Model) where(args []string) (Model, tea.Cmd) {
	text, err := model.ExpandSaved(args[0], m.opts.Queries, m.opts.QueriesFrom)
	if err == nil {
		_, err = parseSetsQuery(text, m.queryNow())
	}
	if err != nil {
		return m.setStatus("where: "+oneLine(err.Error()), true)
	}
	return m.showJobsView(showJobsMsg{query: text, filter: true})
}
