// Package journal is the record of what each executed write changed, kept
// so that it can be put back: one file per action, in the user's state
// directory beside the audit log, readable by its owner only (it holds the
// jobs' bytes, arguments included).
//
// A file is a sequence of records, each a 4-byte big-endian length, a
// 4-byte CRC-32C of the payload and the payload (one JSON object). A
// record is appended with one write, so a process killed at any point
// leaves a file whose whole records all read back; a cut or altered record
// ends the reading there, and the reader says so.
package journal

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Record kinds.
const (
	// KindHeader is the first record: the action and where it ran.
	KindHeader = "header"
	// KindIntent is written before a script call is sent: what the call
	// will change, with the values before.
	KindIntent = "intent"
	// KindCommit is written after the call's reply is read: what the
	// script reported.
	KindCommit = "commit"
	// KindEnd is the last record of an action that ran to its end.
	KindEnd = "end"
)

// Record is one record of a file. Which fields are set depends on Kind.
type Record struct {
	Kind string `json:"k"`
	// Header
	Header *Header `json:"header,omitempty"`
	// Intent and commit: Seq numbers the call within the action.
	Seq    int     `json:"seq,omitempty"`
	Intent *Intent `json:"intent,omitempty"`
	Commit *Commit `json:"commit,omitempty"`
	// End
	End *End `json:"end,omitempty"`
}

// maxRecord bounds one record's payload: a script call moves at most a
// few thousand members of at most 32 KB of bytes in all, or a few large
// ones; anything longer than this is a damaged length.
const maxRecord = 256 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// appendEncoded is a record as written (length, checksum, payload), in
// b's bytes, which it reuses (a writer's buffer, kept from record to
// record).
func appendEncoded(b []byte, r Record) ([]byte, error) {
	b = append(b[:0], make([]byte, 8)...)
	out, err := appendRecord(b, r)
	if err != nil {
		return nil, fmt.Errorf("encode journal record: %w", err)
	}
	payload := out[8:]
	if len(payload) > maxRecord {
		return nil, fmt.Errorf("encode journal record: %d bytes, more than %d", len(payload), maxRecord)
	}
	binary.BigEndian.PutUint32(out[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(out[4:8], checksum(payload))
	return out, nil
}

// errDamaged: a record is cut short, or its checksum or JSON is wrong.
// errCut and errAltered tell the two apart: a process killed in the middle
// of a write leaves the last record cut, while a record whose bytes are all
// there but fail their check was changed after it was written.
var (
	errDamaged = errors.New("damaged record")
	errCut     = fmt.Errorf("%w: cut short", errDamaged)
	errAltered = fmt.Errorf("%w: altered", errDamaged)
)

// decode reads the next record of r, of which at most left bytes remain:
// the record, its payload and the bytes read. It returns io.EOF at a clean
// end, errCut (wrapped) for a record that runs past the end and errAltered
// (wrapped) for one that fails its check. The payload is never allocated
// larger than what remains, so a damaged length cannot cost more memory
// than the file's size.
func decode(r io.Reader, left int64) (Record, []byte, int, error) {
	var head [8]byte
	n, err := io.ReadFull(r, head[:])
	if err == io.EOF {
		return Record{}, nil, 0, io.EOF
	}
	if err != nil {
		return Record{}, nil, n, fmt.Errorf("%w in its length", errCut)
	}
	size := int64(binary.BigEndian.Uint32(head[0:4]))
	if size > maxRecord {
		return Record{}, nil, n, fmt.Errorf("%w: length %d", errAltered, size)
	}
	if rest := left - int64(n); size > rest {
		m, _ := io.Copy(io.Discard, io.LimitReader(r, max(rest, 0)))
		return Record{}, nil, n + int(m), fmt.Errorf("%w (%d of %d bytes)", errCut, m, size)
	}
	payload := make([]byte, size)
	m, err := io.ReadFull(r, payload)
	if err != nil {
		return Record{}, nil, n + m, fmt.Errorf("%w (%d of %d bytes)", errCut, m, size)
	}
	if checksum(payload) != binary.BigEndian.Uint32(head[4:8]) {
		return Record{}, nil, n + m, fmt.Errorf("%w: its checksum does not match", errAltered)
	}
	var rec Record
	if err := json.Unmarshal(payload, &rec); err != nil {
		return Record{}, nil, n + m, fmt.Errorf("%w: %v", errAltered, err)
	}
	return rec, payload, n + m, nil
}

// checksum is a payload's checksum as a record holds it.
func checksum(payload []byte) uint32 { return crc32.Checksum(payload, crcTable) }
