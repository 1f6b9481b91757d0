package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/workq-tui/workq-tui/internal/safefile"
)

// ErrNotFound: no journal has the ID asked for.
var ErrNotFound = errors.New("no such action in the journal")

// ErrNoHeader: a file whose first record cannot be read.
var ErrNoHeader = errors.New("journal file has no readable header")

// ErrForeign: a file of the journal directory whose name is not that of a
// journal. It is left alone and never read.
var ErrForeign = errors.New("not a journal's name: left alone")

// Action is one action's journal as read back.
type Action struct {
	Header Header `json:"header"`
	Calls  []Call `json:"calls"`
	// End is nil for an action that did not reach its end (killed, or
	// still running).
	End *End `json:"end"`
	// Damage says where reading stopped early or what was left out, ""
	// for a file read whole.
	Damage string `json:"damage,omitempty"`
	// Altered is set when a record fails its check though its bytes are
	// all there, or contradicts another: the file was changed after it was
	// written, and none of it can be trusted to put anything back. A file
	// only cut short (what a kill leaves) is not altered.
	Altered string `json:"altered,omitempty"`
	Size    int64  `json:"size"`
}

// Call is one script call: what it was to change and, when its reply was
// read, what it reported. A call without Commit may or may not have run.
type Call struct {
	Seq    int     `json:"seq"`
	Intent Intent  `json:"intent"`
	Commit *Commit `json:"commit"`
}

type fileInfo struct {
	id   string
	size int64
}

// files lists the directory's journals, oldest first, and the names of
// the files that are not journals. A directory that others can write to,
// or of another user, is refused: anyone could have planted its files.
func (d Dir) files() ([]fileInfo, []string, error) {
	entries, err := os.ReadDir(d.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	if err := safefile.TrustedDir(d.Path); err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	var out []fileInfo
	var foreign []string
	for _, e := range entries {
		name := e.Name()
		id, ok := idOfName(name)
		if !ok {
			foreign = append(foreign, name)
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed since the listing
		}
		out = append(out, fileInfo{id: id, size: fi.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, foreign, nil
}

// List reads every journal of the directory, oldest first. Files that
// cannot be read at all, and files that are not journals (ErrForeign), are
// left out and named in the second result.
func (d Dir) List() ([]*Action, []error, error) {
	return d.list(d.Read)
}

// Skims is List with each action skimmed (see Skim): for completion and
// for pruning, which need no call's items.
func (d Dir) Skims() ([]*Action, []error, error) {
	return d.list(d.Skim)
}

func (d Dir) list(read func(string) (*Action, error)) ([]*Action, []error, error) {
	files, foreign, err := d.files()
	if err != nil {
		return nil, nil, err
	}
	var out []*Action
	var bad []error
	for _, name := range foreign {
		bad = append(bad, fmt.Errorf("journal: file %s in %s: %w", quoteName(name), d.Path, ErrForeign))
	}
	for _, f := range files {
		a, err := read(f.id)
		if err != nil {
			if !errors.Is(err, ErrNotFound) {
				bad = append(bad, err)
			}
			continue
		}
		out = append(out, a)
	}
	return out, bad, nil
}

// open opens the journal of action id for reading: a regular file of the
// user's, that no one else can write, in a directory no one else can write
// to, never through a symbolic link.
func (d Dir) open(id string) (*os.File, fs.FileInfo, error) {
	if !ValidID(id) {
		return nil, nil, fmt.Errorf("action %s: %w", quoteName(id), ErrNotFound)
	}
	path := filepath.Join(d.Path, id+ext)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("action %s: %w", id, ErrNotFound)
	}
	if err := safefile.TrustedDir(d.Path); err != nil {
		return nil, nil, fmt.Errorf("journal %s: %w", id, err)
	}
	f, fi, err := safefile.Open(path, safefile.Rules{NoFollow: true, Private: true})
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("action %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("journal %s: %w", id, err)
	}
	return f, fi, nil
}

// Read reads the journal of action id, up to its last whole record.
func (d Dir) Read(id string) (*Action, error) {
	f, fi, err := d.open(id)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // opened for reading
	a, err := readAction(bufio.NewReaderSize(f, 64<<10), fi.Size())
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", filepath.Join(d.Path, id+ext), err)
	}
	if a.Header.ID != id {
		a.alter(fmt.Sprintf("its header names action %s", quoteName(a.Header.ID)))
		a.Header.ID = id
	}
	return a, nil
}

// alter records that the file was changed after it was written.
func (a *Action) alter(what string) {
	a.Altered = joinDamage(a.Altered, what)
	a.Damage = joinDamage(a.Damage, what)
}

// seen is what readAction remembers of a record to tell a repeat (the same
// bytes again, left out) from a contradiction (other bytes, altered).
type seen struct {
	n   int // the record's number
	sum uint32
	len int
}

func sumOf(n int, payload []byte) seen {
	return seen{n: n, sum: checksum(payload), len: len(payload)}
}

// readAction reads records up to the end or the first damaged one; size
// is the file's size, which bounds every record.
func readAction(r io.Reader, size int64) (*Action, error) {
	a := &Action{}
	byseq := map[int]int{}
	intents, commits := map[int]seen{}, map[int]seen{}
	var header, end seen
	n := 0
	for {
		rec, payload, used, err := decode(r, size-a.Size)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if n == 0 {
				return nil, fmt.Errorf("%w: %v", ErrNoHeader, err)
			}
			rest, _ := io.Copy(io.Discard, r)
			what := fmt.Sprintf("read up to record %d; the %d bytes after it are cut short or altered (%v), and are left out", n, int64(used)+rest, err)
			if errors.Is(err, errAltered) {
				a.alter(what)
			} else {
				a.Damage = joinDamage(a.Damage, what)
			}
			a.Size += int64(used) + rest
			break
		}
		a.Size += int64(used)
		n++
		this := sumOf(n, payload)
		// repeat is whether the record repeats an earlier one byte for
		// byte (left out); a record of the same place with other bytes
		// means the file was altered.
		repeat := func(first seen, what string) bool {
			if first.n == 0 {
				return false
			}
			if first.sum == this.sum && first.len == this.len {
				a.Damage = joinDamage(a.Damage, fmt.Sprintf("record %d repeats record %d: left out", n, first.n))
			} else {
				a.alter(fmt.Sprintf("record %d is a second %s, unlike record %d", n, what, first.n))
			}
			return true
		}
		switch {
		case n == 1 && (rec.Kind != KindHeader || rec.Header == nil):
			return nil, fmt.Errorf("%w: the first record is a %q", ErrNoHeader, rec.Kind)
		case n == 1:
			a.Header = *rec.Header
			header = this
		case rec.Kind == KindHeader:
			repeat(header, "header")
		case rec.Kind == KindIntent && rec.Intent != nil:
			if repeat(intents[rec.Seq], fmt.Sprintf("intent of call %d", rec.Seq)) {
				continue
			}
			intents[rec.Seq] = this
			byseq[rec.Seq] = len(a.Calls)
			a.Calls = append(a.Calls, Call{Seq: rec.Seq, Intent: *rec.Intent})
		case rec.Kind == KindCommit && rec.Commit != nil:
			if repeat(commits[rec.Seq], fmt.Sprintf("commit of call %d", rec.Seq)) {
				continue
			}
			i, ok := byseq[rec.Seq]
			if !ok {
				a.alter(fmt.Sprintf("record %d commits call %d, which has no intent", n, rec.Seq))
				continue
			}
			commits[rec.Seq] = this
			c := *rec.Commit
			a.Calls[i].Commit = &c
		case rec.Kind == KindEnd && rec.End != nil:
			if repeat(end, "end") {
				continue
			}
			end = this
			e := *rec.End
			a.End = &e
		default:
			a.alter(fmt.Sprintf("record %d is of unknown kind %q", n, rec.Kind))
		}
	}
	return a, nil
}

func joinDamage(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
