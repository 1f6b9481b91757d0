// Package editor opens text in the operator's editor ($VISUAL, then
// $EDITOR, then vi) through a file of its own, mode 0600 in a private
// temporary directory that Close removes. The command is built, not run:
// the CLI runs it on the terminal, the screen hands it to bubbletea's
// ExecProcess, which suspends the screen while it runs.
package editor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoEditor: $VISUAL and $EDITOR are unset and vi is not installed.
var ErrNoEditor = errors.New("no editor: set $VISUAL or $EDITOR")

// Session is one edit: the file and the command that edits it.
type Session struct {
	dir, path string
	// Cmd runs the editor on the file; its standard streams are the
	// caller's to set.
	Cmd *exec.Cmd
}

// Command is the editor's words from getenv: $VISUAL, else $EDITOR, else
// vi. A value may carry arguments ("code --wait"), split at spaces.
func Command(getenv func(string) string) []string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if w := strings.Fields(getenv(v)); len(w) > 0 {
			return w
		}
	}
	return []string{"vi"}
}

// Open writes text to a new file named name in a private temporary
// directory (mode 0700, the file 0600) and builds the editor's command on
// it. The caller runs Cmd, then reads the result with Read, then Closes.
func Open(getenv func(string) string, name string, text []byte) (*Session, error) {
	words := Command(getenv)
	bin, err := exec.LookPath(words[0])
	if err != nil {
		if words[0] == "vi" {
			return nil, ErrNoEditor
		}
		return nil, fmt.Errorf("editor %q: %w", words[0], err)
	}
	dir, err := os.MkdirTemp("", "workq-tui-edit-")
	if err != nil {
		return nil, fmt.Errorf("editor: %w", err)
	}
	s := &Session{dir: dir, path: filepath.Join(dir, name)}
	if err := os.WriteFile(s.path, text, 0o600); err != nil {
		s.Close()
		return nil, fmt.Errorf("editor: %w", err)
	}
	s.Cmd = exec.Command(bin, append(words[1:], s.path)...) //nolint:gosec // the operator's own editor
	s.Cmd.Args[0] = words[0]
	return s, nil
}

// Path is the file the editor edits.
func (s *Session) Path() string { return s.path }

// Read is the file's text as the editor left it.
func (s *Session) Read() ([]byte, error) {
	b, err := os.ReadFile(s.path)
	if err != nil {
		return nil, fmt.Errorf("editor: read the edited file: %w", err)
	}
	return b, nil
}

// Close removes the file and its directory.
func (s *Session) Close() {
	_ = os.RemoveAll(s.dir)
}
