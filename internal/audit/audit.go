// Package audit is the log of executed writes: one line per action, in a
// file readable by its owner only, under the user's state directory unless
// a path is given.
package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/workq-tui/workq-tui/internal/safefile"
)

// Entry is one executed action.
type Entry struct {
	Time time.Time
	// Target names the target of a fleet (as given to --target); empty
	// for a screen of one Redis, and then left out of the line.
	Target    string
	Address   string // never with a password
	Namespace string
	Action    string
	Targets   []string
	Moved     int64
	Result    string
	// Journal is the ID of the action's journal ("" for none), which
	// `history` shows and `undo` puts back.
	Journal string
}

// File appends one line per entry to a file, creating it (and its
// directory) on first use, readable by the owner only. The OS user is
// recorded on every line.
type File struct {
	Path string
	User string
	mu   sync.Mutex
}

// Record appends e as one line:
//
//	2026-11-29T15:30:00Z user=ops redis=localhost:6379 namespace=work action=reap targets=id1,id2 moved=14 result="reaped 2 pools, ..." journal=20261129-153000-001
func (f *File) Record(e Entry) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Path == "" {
		return errors.New("no audit log path")
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("create audit log directory: %w", err)
	}
	fh, err := Open(f.Path)
	if err != nil {
		return fmt.Errorf("open audit log: %w", err)
	}
	_, werr := fh.WriteString(Format(f.User, e))
	cerr := fh.Close()
	if werr != nil {
		return fmt.Errorf("write audit log: %w", werr)
	}
	if cerr != nil {
		return fmt.Errorf("close audit log: %w", cerr)
	}
	return nil
}

// Open opens the audit log at path for appending, creating it (mode 0600)
// if need be: a regular file of the user's that no one else can write,
// never through a symbolic link (in a directory others can write to, a link
// planted as the log would send the lines elsewhere), and never a FIFO,
// which would hang the write.
func Open(path string) (*os.File, error) {
	f, _, err := safefile.OpenAppend(path, safefile.Rules{NoFollow: true, Private: true}, 0o600)
	return f, err
}

// Format is one audit line, ending in a newline. Values with spaces,
// quotes or control characters are quoted, so a line is always one line and
// splits into key=value fields. targets is a comma-separated list whose
// items are quoted when they need it (see targetList).
func Format(user string, e Entry) string {
	fields := []string{
		e.Time.UTC().Format(time.RFC3339),
		"user=" + value(user),
	}
	if e.Target != "" {
		fields = append(fields, "target="+value(e.Target))
	}
	fields = append(fields,
		"redis="+value(e.Address),
		"namespace="+value(e.Namespace),
		"action="+value(e.Action),
		"targets="+value(targetList(e.Targets)),
		"moved="+strconv.FormatInt(e.Moved, 10),
		"result="+value(e.Result),
	)
	if e.Journal != "" {
		fields = append(fields, "journal="+value(e.Journal))
	}
	return strings.Join(fields, " ") + "\n"
}

// targetList joins the targets with commas. An item that holds a comma,
// a quote or a backslash, or is empty, is written as a Go quoted string, so
// that an id "x,all" never reads as the two items x and all, and ParseTargets
// reads the list back exactly.
func targetList(targets []string) string {
	items := make([]string, len(targets))
	for i, t := range targets {
		if t == "" || strings.ContainsAny(t, `,"\`) {
			t = strconv.QuoteToASCII(t)
		}
		items[i] = t
	}
	return strings.Join(items, ",")
}

// ParseTargets reads the value of an audit line's targets field, as it
// stands after "targets=", back into its items.
func ParseTargets(field string) ([]string, error) {
	list := field
	if strings.HasPrefix(field, `"`) {
		s, err := strconv.Unquote(field)
		if err != nil {
			return nil, fmt.Errorf("targets %s: %w", field, err)
		}
		list = s
	}
	if list == "" {
		return nil, nil
	}
	var out []string
	for {
		item := list
		if strings.HasPrefix(list, `"`) {
			q, err := strconv.QuotedPrefix(list)
			if err != nil {
				return nil, fmt.Errorf("targets %s: %w", field, err)
			}
			if item, err = strconv.Unquote(q); err != nil {
				return nil, fmt.Errorf("targets %s: %w", field, err)
			}
			list = list[len(q):]
		} else if i := strings.IndexByte(list, ','); i >= 0 {
			item, list = list[:i], list[i:]
		} else {
			list = ""
		}
		out = append(out, item)
		if list == "" {
			return out, nil
		}
		if list[0] != ',' || len(list) == 1 {
			return nil, fmt.Errorf("targets %s: want a comma between items", field)
		}
		list = list[1:]
	}
}

func value(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r <= ' ' || r == '"' || r == '=' || r == 0x7f || r >= 0x80 {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

// DefaultPath is the audit log in the user's state directory:
// $XDG_STATE_HOME/workq-tui/audit.log, else ~/.local/state/workq-tui/audit.log.
func DefaultPath(getenv func(string) string, home string) (string, error) {
	if dir := getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "workq-tui", "audit.log"), nil
	}
	if home == "" {
		return "", errors.New("no home directory for the audit log: set --audit-log or XDG_STATE_HOME")
	}
	return filepath.Join(home, ".local", "state", "workq-tui", "audit.log"), nil
}
