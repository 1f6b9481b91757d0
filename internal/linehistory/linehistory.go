// Package linehistory keeps the screen's command line history across
// runs: one line per command, oldest first, in a file of the user's state
// directory beside the audit log, readable and writable by its owner
// only, bounded, and never holding a line that looks like it carries a
// secret.
package linehistory

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/workq-tui/workq-tui/internal/safefile"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// Max is how many lines a history keeps: the newest.
const Max = 200

// maxFile is the most of a file Load reads; a longer file is cut to its
// last lines, so a file grown by hand cannot fill memory.
const maxFile = 1 << 20

// File is the history file at Path.
type File struct {
	Path string
}

// DefaultPath is the history beside the audit log (whose path is
// auditLog): cmdline_history in the same directory.
func DefaultPath(auditLog string) string {
	return filepath.Join(filepath.Dir(auditLog), "cmdline_history")
}

// Load reads the history, oldest first; a missing file is an empty
// history. A file that is not a regular file (a FIFO there is refused,
// never waited on), a symbolic link, not the user's own, or that others
// can write is refused: what it holds would be typed back into the
// screen. Every line is cleaned for the terminal, and lines that Keep
// refuses are dropped.
func (f File) Load() ([]string, error) {
	fh, _, err := safefile.Open(f.Path, safefile.Rules{NoFollow: true, Private: true})
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open command history: %w", err)
	}
	defer func() { _ = fh.Close() }() // opened for reading
	data, err := io.ReadAll(io.LimitReader(fh, maxFile))
	if err != nil {
		return nil, fmt.Errorf("read command history: %w", err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxFile)
	for sc.Scan() {
		if l, ok := Keep(sc.Text()); ok {
			lines = append(lines, l)
		}
	}
	return Bound(lines), nil
}

// Save writes the history (its newest Max lines kept, each passing
// Keep) in place of the file, at once: a new file of mode 0600 renamed
// over the old one, its directory created 0700.
func (f File) Save(lines []string) error {
	var b strings.Builder
	var kept []string
	for _, l := range lines {
		if k, ok := Keep(l); ok {
			kept = append(kept, k)
		}
	}
	for _, l := range Bound(kept) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create command history directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".cmdline_history-*")
	if err != nil {
		return fmt.Errorf("save command history: %w", err)
	}
	name := tmp.Name()
	_, werr := tmp.WriteString(b.String())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("save command history: %w", err)
	}
	if err := os.Rename(name, f.Path); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("save command history: %w", err)
	}
	return nil
}

// trimAt is the size past which Append rewrites the file with its newest
// Max lines: appends let it grow a little past Max between rewrites.
const trimAt = 64 << 10

// Append adds lines (each passing Keep) to the end of the history as it is
// in the file now, in one write to the file opened for appending (mode
// 0600, its directory created 0700, under the rules Load reads it by), so
// that screens writing the same history (a fleet's targets, or two
// terminals) each add their own lines and none writes over another's.
// Past trimAt the file is written again with its newest Max lines.
func (f File) Append(lines []string) error {
	var b strings.Builder
	for _, l := range lines {
		if k, ok := Keep(l); ok {
			b.WriteString(k)
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("create command history directory: %w", err)
	}
	fh, fi, err := safefile.OpenAppend(f.Path, safefile.Rules{NoFollow: true, Private: true}, 0o600)
	if err != nil {
		return fmt.Errorf("open command history: %w", err)
	}
	_, werr := fh.WriteString(b.String())
	if err := errors.Join(werr, fh.Close()); err != nil {
		return fmt.Errorf("save command history: %w", err)
	}
	if fi.Size()+int64(b.Len()) <= trimAt {
		return nil
	}
	kept, err := f.Load()
	if err != nil {
		return err
	}
	return f.Save(kept)
}

// Bound is the newest Max of lines.
func Bound(lines []string) []string {
	if len(lines) > Max {
		return lines[len(lines)-Max:]
	}
	return lines
}

// Keep is a line as the history keeps it (cleaned for the terminal, on
// one line, trimmed), and whether it is kept at all: an empty line is
// not, nor one that may carry a secret (a password, token or secret
// named, or a URL with a user part).
func Keep(line string) (string, bool) {
	l := strings.TrimSpace(textsafe.Clean(strings.Join(strings.Fields(line), " ")))
	if l == "" {
		return "", false
	}
	low := strings.ToLower(l)
	for _, w := range []string{"pass", "secret", "token", "auth", "credential"} {
		if strings.Contains(low, w) {
			return "", false
		}
	}
	if i := strings.Index(low, "://"); i >= 0 && strings.Contains(low[i:], "@") {
		return "", false
	}
	return l, true
}
