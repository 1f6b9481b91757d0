package screentest

import (
	"encoding/base64"
	"strings"
)

// StatusLine is the line above the key help at the foot of the screen:
// where the screen answers what was pressed ("" when it says nothing).
func (s *Screen) StatusLine() string {
	lines := s.Lines()
	if len(lines) < 2 {
		return ""
	}
	return strings.TrimSpace(lines[len(lines)-2])
}

// HelpLine is the key help at the foot of the screen.
func (s *Screen) HelpLine() string {
	lines := s.Lines()
	return strings.TrimSpace(lines[len(lines)-1])
}

// dialogLines are the lines inside the dialog's border, trimmed, or nil
// when no dialog is drawn.
func (s *Screen) dialogLines() []string {
	var in []string
	open := false
	for _, l := range s.Lines() {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "╭") || strings.HasPrefix(t, "┌"):
			open, in = true, nil
		case strings.HasPrefix(t, "╰") || strings.HasPrefix(t, "└"):
			if open {
				return in
			}
		case open:
			t = strings.TrimPrefix(strings.TrimPrefix(t, "│"), "|")
			t = strings.TrimSuffix(strings.TrimSuffix(t, "│"), "|")
			in = append(in, strings.TrimSpace(t))
		}
	}
	return nil
}

// DialogTitle is the open dialog's title, "" when none is drawn.
func (s *Screen) DialogTitle() string {
	for _, l := range s.dialogLines() {
		if l != "" {
			return l
		}
	}
	return ""
}

// DialogFooter is the open dialog's last line: what it offers to press.
func (s *Screen) DialogFooter() string {
	lines := s.dialogLines()
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i] != "" {
			return lines[i]
		}
	}
	return ""
}

// Dialog is the open dialog's text, its lines joined, "" when none.
func (s *Screen) Dialog() string { return strings.Join(s.dialogLines(), "\n") }

// decodeOSC52 is the text of each OSC 52 clipboard sequence in out.
func decodeOSC52(out string) []string {
	var texts []string
	for {
		i := strings.Index(out, "\x1b]52;")
		if i < 0 {
			return texts
		}
		out = out[i+len("\x1b]52;"):]
		semi := strings.IndexByte(out, ';')
		if semi < 0 {
			return texts
		}
		out = out[semi+1:]
		end := strings.IndexAny(out, "\x07\x1b")
		if end < 0 {
			return texts
		}
		b, err := base64.StdEncoding.DecodeString(out[:end])
		if err == nil {
			texts = append(texts, string(b))
		}
		out = out[end:]
	}
}
