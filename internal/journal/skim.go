package journal

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
)

// maxSkimmed bounds the header and end records a skim decodes: both are a
// few hundred bytes; a larger one is read as damage, not allocated.
const maxSkimmed = 1 << 20

// Skim reads the journal of action id without its calls: the header, the
// end record when the file has one. Every other record's payload is
// skipped unread, so a skim costs a few kilobytes of memory whatever the
// file's size: it is what completion and pruning read. Checksums of
// skipped records are not checked (Read does).
func (d Dir) Skim(id string) (*Action, error) {
	f, fi, err := d.open(id)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // opened for reading
	size := fi.Size()
	r := bufio.NewReaderSize(f, 4<<10)
	a, used, err := d.readHeader(r, id, size)
	if err != nil {
		return nil, err
	}
	off, last, records := int64(used), int64(-1), 1
	head := make([]byte, 8) // one buffer for every length read
	for off < size {
		if _, err := io.ReadFull(r, head); err != nil {
			a.Damage = joinDamage(a.Damage, fmt.Sprintf("cut short after record %d", records))
			return a, nil
		}
		n := int64(binary.BigEndian.Uint32(head[0:4]))
		if off+8+n > size {
			a.Damage = joinDamage(a.Damage, fmt.Sprintf("cut short after record %d", records))
			return a, nil
		}
		last = off
		if _, err := r.Discard(int(n)); err != nil {
			return nil, fmt.Errorf("journal %s: %w", filepath.Join(d.Path, id+ext), err)
		}
		off += 8 + n
		records++
	}
	if last < 0 || size-last > maxSkimmed {
		return a, nil
	}
	if _, err := f.Seek(last, io.SeekStart); err != nil {
		return nil, fmt.Errorf("journal %s: %w", filepath.Join(d.Path, id+ext), err)
	}
	rec, _, _, err := decode(f, size-last)
	if err == nil && rec.Kind == KindEnd && rec.End != nil {
		e := *rec.End
		a.End = &e
	}
	return a, nil
}

// Headers reads the header of every journal of the directory and nothing
// after it (Action.Header and Size only; no damage past the header is
// seen): what a reader that picks journals by their header needs, at a
// few kilobytes a journal whatever its size. Journals without a readable
// header are among the errors, as with List.
func (d Dir) Headers() ([]*Action, []error, error) {
	return d.list(d.header)
}

func (d Dir) header(id string) (*Action, error) {
	f, fi, err := d.open(id)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // opened for reading
	a, _, err := d.readHeader(bufio.NewReaderSize(f, 4<<10), id, fi.Size())
	return a, err
}

// readHeader reads the header record of the journal of id (of size
// bytes) from r: the action it starts, and the bytes read.
func (d Dir) readHeader(r io.Reader, id string, size int64) (*Action, int, error) {
	rec, _, used, err := decode(io.LimitReader(r, maxSkimmed+8), min(size, maxSkimmed+8))
	if err != nil || rec.Kind != KindHeader || rec.Header == nil {
		if err == nil {
			err = fmt.Errorf("the first record is a %q", rec.Kind)
		}
		return nil, 0, fmt.Errorf("journal %s: %w: %v", filepath.Join(d.Path, id+ext), ErrNoHeader, err)
	}
	a := &Action{Header: *rec.Header, Size: size}
	if a.Header.ID != id {
		a.alter(fmt.Sprintf("its header names action %s", quoteName(a.Header.ID)))
		a.Header.ID = id
	}
	return a, used, nil
}
