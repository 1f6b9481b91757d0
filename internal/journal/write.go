package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// DefaultMax is the default bound of a journal directory's bytes.
const DefaultMax = 256 << 20

// ext ends every journal file's name.
const ext = ".wqj"

// Dir is a directory of journals, one file per action, named by the
// action's ID. Max bounds the bytes of all its files: the oldest actions
// go first when a new one starts or ends past it (0: DefaultMax).
type Dir struct {
	Path string
	Max  int64
}

// DirBeside is the journal directory beside an audit log file: the
// directory "journal" next to it.
func DirBeside(auditLog string) string {
	return filepath.Join(filepath.Dir(auditLog), "journal")
}

// Writer appends the records of one action to its file.
type Writer struct {
	dir  Dir
	f    *os.File
	id   string
	seq  int
	size int64
}

// Create starts the journal of an action: its file (mode 0600, in a
// directory of mode 0700) and header record. The header's ID and Time
// are set here.
func (d Dir) Create(h Header) (*Writer, error) {
	if d.Path == "" {
		return nil, errors.New("journal: no directory")
	}
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	h.Time = time.Now().UTC()
	var f *os.File
	for i := 1; ; i++ {
		h.ID = newID(h.Time, i)
		var err error
		f, err = os.OpenFile(filepath.Join(d.Path, h.ID+ext), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i == maxPerSecond {
			return nil, fmt.Errorf("journal: %w", err)
		}
	}
	w := &Writer{dir: d, f: f, id: h.ID}
	if err := w.append(Record{Kind: KindHeader, Header: &h}); err != nil {
		_ = f.Close() // the error above is the one to report
		return nil, err
	}
	if err := d.prune(h.ID); err != nil {
		_ = f.Close() // the error above is the one to report
		return nil, err
	}
	return w, nil
}

// maxPerSecond bounds the actions started in one second.
const maxPerSecond = 999

// newID is an action ID: its UTC time to the second, then the n-th action
// of that second (the first file name not taken), so that IDs sort by
// time and stay short enough to type.
func newID(t time.Time, n int) string {
	return fmt.Sprintf("%s-%03d", t.UTC().Format("20060102-150405"), n)
}

// ID is the action's ID.
func (w *Writer) ID() string { return w.id }

// Intent appends what the next script call will change and returns the
// call's sequence number: call it before the call is sent.
func (w *Writer) Intent(in Intent) (int, error) {
	w.seq++
	return w.seq, w.append(Record{Kind: KindIntent, Seq: w.seq, Intent: &in})
}

// Commit appends what call seq reported.
func (w *Writer) Commit(seq int, c Commit) error {
	return w.append(Record{Kind: KindCommit, Seq: seq, Commit: &c})
}

// End appends the end of the action.
func (w *Writer) End(e End) error {
	return w.append(Record{Kind: KindEnd, End: &e})
}

// Close closes the file and drops the oldest actions past the bound.
func (w *Writer) Close() error {
	err := w.f.Close()
	if perr := w.dir.prune(w.id); err == nil {
		err = perr
	}
	if err != nil {
		return fmt.Errorf("journal %s: %w", w.id, err)
	}
	return nil
}

// append writes one record with one write: a kill leaves it whole or cut,
// and a cut one is where reading stops.
func (w *Writer) append(r Record) error {
	b, err := encode(r)
	if err != nil {
		return fmt.Errorf("journal %s: %w", w.id, err)
	}
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("journal %s: %w", w.id, err)
	}
	w.size += int64(len(b))
	return nil
}

// prune removes the oldest journals while the directory holds more than
// Max bytes, never keep (the action being written).
func (d Dir) prune(keep string) error {
	limit := d.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	files, err := d.files()
	if err != nil {
		return err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	for _, f := range files { // oldest first
		if total <= limit {
			break
		}
		if f.id == keep {
			continue
		}
		if err := os.Remove(filepath.Join(d.Path, f.id+ext)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("journal: drop %s: %w", f.id, err)
		}
		total -= f.size
	}
	return nil
}
