package tui

// This file owns the command line ':' opens at the bottom of the screen:
// its text, its history (kept across runs by a LineStore), its completion (tab) from
// what the screen already holds, and how it is drawn. What each command
// does is in cmdline_run.go.

import (
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// cmdLine is the state of the command line.
type cmdLine struct {
	open  bool
	input filterInput
	// history holds the lines run, oldest first; hist is the one shown
	// while up and down browse it (len(history) when none is), draft the
	// line being typed before up was pressed.
	history []string
	hist    int
	draft   string
	// cands are the completions tab offered for the word being typed,
	// base the line before that word; pick is the one in the line while
	// tab cycles through them, -1 before.
	cands []string
	base  string
	pick  int
	// targets are the fleet's targets :target goes to; none on a screen
	// of one Redis.
	targets []string
	// saving is set while lines are being added to the store; pending
	// are the lines run and not yet added: one write at a time, so that
	// the file holds them in the order they were run.
	saving  bool
	pending []string
}

// cmdLineKey is the command line's share of a key: ':' opens it (not in
// a dialog, nor while the filter is typed), and while it is open it takes
// every key. ok is false for a key it does not take.
func (m Model) cmdLineKey(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	if !m.cmdline.open {
		if !key.Matches(msg, m.keys.get(actions.Command)) || msg.Paste || m.dialog != nil || m.filtering {
			return m, nil, false
		}
		m.cmdline.open = true
		m.cmdline.input = filterInput{}
		m.cmdline.hist = len(m.cmdline.history)
		m.cmdline = m.cmdline.endCycle()
		m.status = statusLine{}
		return m, nil, true
	}
	c := m.cmdline
	switch msg.Type {
	case tea.KeyCtrlC:
		return m, tea.Quit, true
	case tea.KeyEsc:
		m.cmdline.open = false
		return m, nil, true
	case tea.KeyEnter:
		line := strings.TrimSpace(c.input.Value())
		c.open = false
		var save tea.Cmd
		if line != "" && (len(c.history) == 0 || c.history[len(c.history)-1] != line) {
			c.history = append(append([]string(nil), c.history...), line)
			if len(c.history) > maxCmdLines {
				c.history = c.history[len(c.history)-maxCmdLines:]
			}
			c.pending = append(append([]string(nil), c.pending...), line)
			c, save = c.save(m.opts.CmdLineStore)
		}
		m.cmdline = c
		mm, cmd := m.runCommand(line)
		return mm, tea.Batch(cmd, save), true
	case tea.KeyTab:
		m.cmdline = c.complete(m.completions(c.input.Value()))
		return m, nil, true
	case tea.KeyUp, tea.KeyDown:
		m.cmdline = c.browse(msg.Type == tea.KeyUp)
		return m, nil, true
	}
	c.input = c.input.update(msg)
	m.cmdline = c.endCycle()
	return m, nil, true
}

// maxCmdLines bounds the history kept in memory (the store keeps its own
// bound).
const maxCmdLines = 200

// LineStore keeps the command line's history across runs: Append adds
// lines run to it.
type LineStore interface {
	Append(lines []string) error
}

// cmdLinesSavedMsg says a write of the history ended, and why it failed
// when err is set.
type cmdLinesSavedMsg struct{ err error }

// save adds the lines run since the last write to store, off the update
// loop, unless a write runs: then they go when that one ends (saved).
// Commands run at once, so two writes in flight could end in either order
// and put the lines in the file out of the order they were run.
func (c cmdLine) save(store LineStore) (cmdLine, tea.Cmd) {
	if store == nil {
		c.pending = nil
		return c, nil
	}
	if c.saving || len(c.pending) == 0 {
		return c, nil
	}
	lines := c.pending
	c.saving, c.pending = true, nil
	return c, func() tea.Msg { return cmdLinesSavedMsg{err: store.Append(lines)} }
}

// saved is the end of a write of the history: the next one starts if a
// line was run meanwhile, and a failure shows in the status line.
func (m Model) saved(msg cmdLinesSavedMsg) (Model, tea.Cmd) {
	m.cmdline.saving = false
	var next tea.Cmd
	m.cmdline, next = m.cmdline.save(m.opts.CmdLineStore)
	if msg.err != nil {
		m, status := m.setStatus("command history not kept: "+oneLine(msg.err.Error()), true)
		return m, tea.Batch(status, next)
	}
	return m, next
}

// endCycle forgets the completions offered: the line was typed in.
func (c cmdLine) endCycle() cmdLine {
	c.cands, c.base, c.pick = nil, "", -1
	return c
}

// browse shows the previous (up) or next line of the history; past the
// newest, the line being typed comes back.
func (c cmdLine) browse(up bool) cmdLine {
	if c.hist == len(c.history) {
		c.draft = c.input.Value()
	}
	switch {
	case up && c.hist > 0:
		c.hist--
	case !up && c.hist < len(c.history):
		c.hist++
	default:
		return c
	}
	if c.hist == len(c.history) {
		c.input = c.input.set(c.draft)
	} else {
		c.input = c.input.set(c.history[c.hist])
	}
	return c.endCycle()
}

// complete is tab: the one completion goes in whole; several put in what
// they have in common, and when that adds nothing, tab cycles through
// them.
func (c cmdLine) complete(base string, cands []string) cmdLine {
	if len(c.cands) > 0 && c.pick >= 0 || len(c.cands) > 1 && c.input.Value() == c.base+commonPrefix(c.cands) {
		c.pick = (c.pick + 1) % len(c.cands)
		c.input = c.input.set(c.base + c.cands[c.pick])
		return c
	}
	word := strings.TrimPrefix(c.input.Value(), base)
	switch len(cands) {
	case 0:
		return c.endCycle()
	case 1:
		c.input = c.input.set(base + cands[0] + " ")
		return c.endCycle()
	}
	c.cands, c.base, c.pick = cands, base, -1
	if p := commonPrefix(cands); len(p) > len(word) {
		c.input = c.input.set(base + p)
		return c
	}
	c.pick = 0
	c.input = c.input.set(base + cands[0])
	return c
}

// commonPrefix is the start all of ss share.
func commonPrefix(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// completions are the words that can follow line, for its last word: a
// command's name, or its argument; base is the line before that word.
func (m Model) completions(line string) (base string, cands []string) {
	i := strings.LastIndexByte(line, ' ')
	word := line[i+1:]
	base = line[:i+1]
	fields := strings.Fields(base)
	var all []string
	if len(fields) == 0 {
		for _, c := range m.commands() {
			if c.offered(m) {
				all = append(all, c.name)
			}
		}
	} else if c, ok := m.command(fields[0]); ok && c.args != nil && len(fields) == 1 && c.offered(m) {
		all = c.args(m)
	}
	for _, s := range all {
		if strings.HasPrefix(s, word) {
			cands = append(cands, s)
		}
	}
	return base, cands
}

// typeable reports whether a name from Redis can be completed: it is shown
// and typed as it is (no control or invisible runes, no space).
func typeable(s string) bool {
	return s != "" && textsafe.Clean(s) == s && !strings.ContainsAny(s, " \t")
}

// jobNames are the job types of the last snapshot, by name.
func (m Model) jobNames() []string {
	if m.snap == nil {
		return nil
	}
	var out []string
	for _, jt := range m.snap.JobTypes {
		if typeable(jt.Name) {
			out = append(out, jt.Name)
		}
	}
	sort.Strings(out)
	return out
}

// poolIDs are the pools of the last snapshot, the dead ones first.
func (m Model) poolIDs() []string {
	if m.snap == nil {
		return nil
	}
	var dead, other []string
	for _, p := range m.snap.Pools {
		switch {
		case !typeable(p.ID):
		case p.Status == model.StatusDead:
			dead = append(dead, p.ID)
		default:
			other = append(other, p.ID)
		}
	}
	sort.Strings(dead)
	sort.Strings(other)
	return append(dead, other...)
}

// deadPoolIDs are the dead pools of the last snapshot: the only ones
// :reap can reap (a live pool's reap is refused), so the only ones it
// completes.
func (m Model) deadPoolIDs() []string {
	if m.snap == nil {
		return nil
	}
	var out []string
	for _, p := range m.snap.Pools {
		if typeable(p.ID) && p.Status == model.StatusDead {
			out = append(out, p.ID)
		}
	}
	sort.Strings(out)
	return out
}

// cmdKeys is the help while the command line is open.
type cmdKeys struct{}

func (cmdKeys) ShortHelp() []key.Binding {
	return []key.Binding{
		key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "history")),
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}
}
func (c cmdKeys) FullHelp() [][]key.Binding { return [][]key.Binding{c.ShortHelp()} }

// cmdFooter is the footer while the command line is open: the completions
// of the word being typed, the line, and its keys; ok is false when it is
// closed.
func (m Model) cmdFooter() (string, bool) {
	c := m.cmdline
	if !c.open {
		return "", false
	}
	cands, pick := c.cands, c.pick
	if len(cands) == 0 {
		_, cands = m.completions(c.input.Value())
		pick = -1
	}
	var words []string
	for i, s := range cands {
		s = textsafe.Clean(s)
		if i == pick {
			s = m.st.selected.Render(s)
		} else {
			s = m.st.faint.Render(s)
		}
		words = append(words, s)
	}
	line := m.st.accent.Render(":") + textsafe.Clean(c.input.Value()) + m.st.selected.Render(" ")
	help := m.help.View(cmdKeys{})
	return fitLine(strings.Join(words, "  "), m.width) + "\n" + fitLine(line, m.width) + "\n" + fitBlock(help, m.width, height(help)), true
}
