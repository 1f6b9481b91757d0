package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrNotFound: no journal has the ID asked for.
var ErrNotFound = errors.New("no such action in the journal")

// ErrNoHeader: a file whose first record cannot be read.
var ErrNoHeader = errors.New("journal file has no readable header")

// Action is one action's journal as read back.
type Action struct {
	Header Header `json:"header"`
	Calls  []Call `json:"calls"`
	// End is nil for an action that did not reach its end (killed, or
	// still running).
	End *End `json:"end"`
	// Damage says where reading stopped early, "" for a file read to its
	// end.
	Damage string `json:"damage,omitempty"`
	Size   int64  `json:"size"`
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

// files lists the directory's journals, oldest first.
func (d Dir) files() ([]fileInfo, error) {
	entries, err := os.ReadDir(d.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var out []fileInfo
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ext) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed since the listing
		}
		out = append(out, fileInfo{id: strings.TrimSuffix(name, ext), size: fi.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

// List reads every journal of the directory, oldest first. Files that
// cannot be read at all are left out and named in the second result.
func (d Dir) List() ([]*Action, []error, error) {
	files, err := d.files()
	if err != nil {
		return nil, nil, err
	}
	var out []*Action
	var bad []error
	for _, f := range files {
		a, err := d.Read(f.id)
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

// Read reads the journal of action id, up to its last whole record.
func (d Dir) Read(id string) (*Action, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return nil, fmt.Errorf("action %q: %w", id, ErrNotFound)
	}
	f, err := os.Open(filepath.Join(d.Path, id+ext))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("action %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", id, err)
	}
	defer func() { _ = f.Close() }() // opened for reading
	a, err := readAction(bufio.NewReaderSize(f, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", id, err)
	}
	if a.Header.ID != id {
		a.Damage = joinDamage(a.Damage, fmt.Sprintf("its header names action %q", a.Header.ID))
		a.Header.ID = id
	}
	return a, nil
}

// readAction reads records up to the end or the first damaged one.
func readAction(r io.Reader) (*Action, error) {
	a := &Action{}
	byseq := map[int]int{}
	n := 0
	for {
		rec, size, err := decode(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if n == 0 {
				return nil, fmt.Errorf("%w: %v", ErrNoHeader, err)
			}
			rest, _ := io.Copy(io.Discard, r)
			a.Damage = fmt.Sprintf("read up to record %d; the %d bytes after it are cut short or altered (%v), and are left out", n, int64(size)+rest, err)
			a.Size += int64(size) + rest
			break
		}
		a.Size += int64(size)
		n++
		switch {
		case n == 1 && (rec.Kind != KindHeader || rec.Header == nil):
			return nil, fmt.Errorf("%w: the first record is a %q", ErrNoHeader, rec.Kind)
		case n == 1:
			a.Header = *rec.Header
		case rec.Kind == KindIntent && rec.Intent != nil:
			byseq[rec.Seq] = len(a.Calls)
			a.Calls = append(a.Calls, Call{Seq: rec.Seq, Intent: *rec.Intent})
		case rec.Kind == KindCommit && rec.Commit != nil:
			i, ok := byseq[rec.Seq]
			if !ok || a.Calls[i].Commit != nil {
				a.Damage = joinDamage(a.Damage, fmt.Sprintf("record %d commits call %d, which has no intent or was committed already: left out", n, rec.Seq))
				continue
			}
			c := *rec.Commit
			a.Calls[i].Commit = &c
		case rec.Kind == KindEnd && rec.End != nil:
			e := *rec.End
			a.End = &e
		default:
			a.Damage = joinDamage(a.Damage, fmt.Sprintf("record %d is of unknown kind %q: left out", n, rec.Kind))
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
