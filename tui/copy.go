package tui

// This file owns c and C: c puts what is under the cursor (an id, a name,
// a key, a job's bytes) on the clipboard of the terminal the operator sits
// at, C the command that shows or acts on it, with the connection flags
// (Options.CommandPrefix, which holds no password), through OSC 52
// (internal/osc52: through ssh and tmux, no question to the terminal).

import (
	"errors"
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/osc52"
	"github.com/workq-tui/workq-tui/internal/shellword"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// copyItem is what c and C copy from the view on top.
type copyItem struct {
	// what names it in the status line ("job id 1f2e...").
	what string
	text []byte
	// command is the words after the program and its connection flags,
	// unquoted; nil when nothing shows or acts on the item.
	command []string
}

// copyItem is what is under the cursor of the view on top.
func (m Model) copyItem() (copyItem, bool) {
	top := m.top()
	if c, ok := top.(copier); ok {
		return c.copyItem()
	}
	if p, ok := m.selectedPool(); ok {
		return copyItem{what: "pool id " + p.ID, text: []byte(p.ID), command: append([]string{"explain", "--pool"}, shellword.Operands(p.ID)...)}, true
	}
	if jt, ok := m.selectedJobType(); ok {
		return copyItem{what: "job type " + jt.Name, text: []byte(jt.Name), command: append([]string{"explain"}, shellword.Operands(jt.Name)...)}, true
	}
	if v, ok := top.(orphanPicker); ok {
		if o, ok := v.pickedOrphan(); ok {
			return copyItem{what: "key " + o.Key, text: []byte(o.Key), command: append([]string{"requeue"}, shellword.Operands(o.Key)...)}, true
		}
	}
	if v, ok := top.(actionPicker); ok {
		if a, ok := v.pickedAction(); ok {
			return copyItem{what: "action " + a.ID, text: []byte(a.ID), command: append([]string{"history"}, shellword.Operands(a.ID)...)}, true
		}
	}
	return copyItem{}, false
}

// setJobCopy is a member of a set: its id, found again by `find ID`; a
// member without an id is copied whole.
func setJobCopy(j model.SetJob) copyItem {
	if j.Job == nil || j.Job.ID == "" {
		return copyItem{what: "the job's bytes", text: j.Raw}
	}
	return copyItem{what: "job id " + j.Job.ID, text: []byte(j.Job.ID), command: append([]string{"find"}, shellword.Operands(j.Job.ID)...)}
}

// copyLook is what c (or C, when command) copies here, or why it does
// nothing here.
func (m Model) copyLook(command bool) (copyItem, string) {
	it, ok := m.copyItem()
	switch {
	case m.opts.Clipboard == nil:
		return it, "copying is not available here"
	case !ok:
		return it, "nothing to copy under the cursor"
	case command && it.command == nil:
		return it, "no command shows " + textsafe.Clean(it.what)
	}
	return it, ""
}

// copyCommandLine is the command of an item, as a person pastes it.
func (m Model) copyCommandLine(it copyItem) (string, error) {
	prefix := m.opts.CommandPrefix
	if prefix == "" {
		prefix = "workq-tui"
	}
	words := []string{prefix}
	for _, w := range it.command {
		if !shellword.Quotable(w) {
			return "", errors.New("a NUL byte cannot be passed on a command line")
		}
		words = append(words, shellword.Quote(w))
	}
	return strings.Join(words, " "), nil
}

// copyNow copies the item under the cursor (its command when command is
// set) and says so in the status line.
func (m Model) copyNow(command bool) (Model, tea.Cmd) {
	it, r := m.copyLook(command)
	if r != "" {
		return m.setStatus(r, true)
	}
	return m.copyIt(it, command)
}

// copyIt copies it (its command when command is set) and says so in the
// status line.
func (m Model) copyIt(it copyItem, command bool) (Model, tea.Cmd) {
	text, what := it.text, textsafe.Clean(it.what)
	if command {
		line, err := m.copyCommandLine(it)
		if err != nil {
			return m.setStatus("not copied: "+err.Error(), true)
		}
		text, what = []byte(line), "the command for "+what
	}
	if err := writeClipboard(m.opts.Clipboard, text); err != nil {
		return m.setStatus(fmt.Sprintf("%s not copied: %s", what, textsafe.Clean(err.Error())), true)
	}
	shown := what
	if command {
		shown = textsafe.Clean(string(text))
	}
	return m.setStatus(fmt.Sprintf("copied %s (%s) to the clipboard", shown, byteCount(len(text))), false)
}

// writeClipboard writes text's OSC 52 sequence to w in one write.
func writeClipboard(w io.Writer, text []byte) error {
	seq, err := osc52.Sequence(text)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, seq)
	return err
}

// byteCount is n bytes in words: "12 bytes", "56.2 KB", "1.0 MB".
func byteCount(n int) string {
	switch {
	case n < 1000:
		return model.Plural(n, "byte", "bytes")
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1000/1000)
}

// copyCommand runs ":copy" (what c copies) and ":copy command" (what C
// copies).
func (m Model) copyCommand(args []string) (Model, tea.Cmd) {
	switch strings.TrimSpace(strings.Join(args, " ")) {
	case "":
		return m.copyNow(false)
	case "command", "cmd":
		return m.copyNow(true)
	}
	return m.setStatus(":copy takes nothing, or command", true)
}
