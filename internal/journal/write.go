package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/workq-tui/workq-tui/internal/safefile"
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
// directory "journal" next to the default audit log (in a directory of the
// program's own, named workq-tui), and the log's name with ".journal"
// added next to any other, so that an audit log in a shared directory such
// as /var/log never puts the journal in a directory another program owns
// (systemd's /var/log/journal).
func DirBeside(auditLog string) string {
	dir := filepath.Dir(auditLog)
	if filepath.Base(dir) == "workq-tui" && filepath.Base(auditLog) == "audit.log" {
		return filepath.Join(dir, "journal")
	}
	return auditLog + ".journal"
}

// LegacyDirBeside is where versions before DirBeside's rule put the
// journal of an audit log outside the default directory: "journal" next to
// it ("" when DirBeside gives that already).
func LegacyDirBeside(auditLog string) string {
	old := filepath.Join(filepath.Dir(auditLog), "journal")
	if old == DirBeside(auditLog) {
		return ""
	}
	return old
}

// File is the path of the journal of action id.
func (d Dir) File(id string) string { return filepath.Join(d.Path, id+ext) }

// Writer appends the records of one action to its file.
type Writer struct {
	dir    Dir
	f      *os.File
	id     string
	seq    int
	size   int64
	pruned []string
	// buf is the last record's bytes, reused for the next (a bulk action
	// writes an intent and a commit of up to 100 KB per script call).
	buf []byte
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
	if err := safefile.TrustedDir(d.Path); err != nil {
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
	// Held until Close: the pruner leaves a journal alone while its action
	// runs. The file was just created, so no one else holds it.
	if err := lock(f, true); err != nil {
		_ = f.Close() // the error above is the one to report
		return nil, fmt.Errorf("journal %s: lock: %w", h.ID, err)
	}
	w := &Writer{dir: d, f: f, id: h.ID}
	if err := w.append(Record{Kind: KindHeader, Header: &h}); err != nil {
		_ = f.Close() // the error above is the one to report
		return nil, err
	}
	pruned, err := d.prune(h.ID)
	w.pruned = pruned
	if err != nil {
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

// Pruned are the IDs of the actions whose journals were dropped to keep
// the directory within its bound, when this one started and closed.
func (w *Writer) Pruned() []string { return w.pruned }

// Close closes the file and drops the oldest actions past the bound.
func (w *Writer) Close() error {
	err := w.f.Close()
	pruned, perr := w.dir.prune(w.id)
	w.pruned = append(w.pruned, pruned...)
	if err == nil {
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
	b, err := appendEncoded(w.buf, r)
	if err != nil {
		return fmt.Errorf("journal %s: %w", w.id, err)
	}
	if cap(b) <= 1<<20 {
		w.buf = b
	}
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("journal %s: %w", w.id, err)
	}
	w.size += int64(len(b))
	return nil
}

// errBusy: another process holds a conflicting lock on a journal.
var errBusy = errors.New("in use")

// prune removes the oldest journals while the directory holds more than
// Max bytes, and returns their IDs. It never removes keep (the action
// being written), a journal in use (an action still writing it or an undo
// reading it holds its lock), nor the journal of an action whose undo did
// not end cleanly (killed or failed: running it again needs that journal),
// nor that undo's own journal (which says so).
// It may then leave the directory above Max.
func (d Dir) prune(keep string) ([]string, error) {
	limit := d.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	files, _, err := d.files()
	if err != nil {
		return nil, err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	if total <= limit {
		return nil, nil
	}
	needed := d.undoSources()
	var removed []string
	for _, f := range files { // oldest first
		if total <= limit {
			break
		}
		if f.id == keep || needed[f.id] {
			continue
		}
		ok, err := d.remove(f.id)
		if err != nil {
			return removed, fmt.Errorf("journal: drop %s: %w", f.id, err)
		}
		if ok {
			removed = append(removed, f.id)
			total -= f.size
		}
	}
	return removed, nil
}

// undoSources are the IDs of the actions whose undo did not end cleanly,
// and of those undos.
func (d Dir) undoSources() map[string]bool {
	acts, _, err := d.Skims()
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, a := range acts {
		if a.Header.Op == OpUndo && (a.End == nil || a.End.Error != "") {
			out[a.Header.UndoOf] = true
			out[a.Header.ID] = true // what says the undo is to be run again
		}
	}
	return out
}

// remove removes the journal of id unless a process holds its lock: false
// when it is in use (or gone already).
func (d Dir) remove(id string) (bool, error) {
	path := filepath.Join(d.Path, id+ext)
	f, _, err := safefile.Open(path, safefile.Rules{NoFollow: true})
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, safefile.ErrNotRegular) {
		return false, nil // gone, or not a journal the program wrote
	}
	if err != nil {
		return false, err
	}
	defer func() { _ = f.Close() }() // releases the lock after the removal
	if err := lock(f, true); errors.Is(err, errBusy) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if !samePath(f, path) {
		return false, nil // replaced since it was opened
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	return true, nil
}

// samePath is whether path still names the file f has open.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// ErrInUse: the journal of the action is being written (the action is still
// running) or pruned.
var ErrInUse = errors.New("its journal is in use: the action is still running")

// Hold keeps the journal of action id from being pruned until release is
// called: an undo holds the journal it puts back for as long as it runs, so
// that the journal of its own action, started meanwhile, cannot prune it.
// An action still running (its writer holds the journal) is ErrInUse.
func (d Dir) Hold(id string) (release func(), err error) {
	f, _, err := d.open(id)
	if err != nil {
		return nil, err
	}
	if err := lock(f, false); err != nil {
		_ = f.Close() // the error below is the one to report
		if errors.Is(err, errBusy) {
			return nil, fmt.Errorf("action %s: %w", id, ErrInUse)
		}
		return nil, fmt.Errorf("journal %s: lock: %w", id, err)
	}
	if !samePath(f, filepath.Join(d.Path, id+ext)) {
		_ = f.Close() // pruned between the open and the lock
		return nil, fmt.Errorf("action %s: %w", id, ErrNotFound)
	}
	return func() { _ = f.Close() }, nil
}
