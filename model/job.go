// Jobs as gocraft/work stores them in its lists (JSON), and the one loose
// parser of them that the snapshot, the CLI and the screen share.

package model

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Job is a gocraft/work job as stored in a list, read loosely: a field of an
// unexpected type is left at its zero value rather than failing the job.
type Job struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// EnqueuedAt is `t` (unix seconds, a float truncated), 0 when missing.
	EnqueuedAt int64 `json:"t"`
	// Args is the `args` object as it was stored.
	Args json.RawMessage `json:"args,omitempty"`
	// Fails, LastErr (`err`) and FailedAt (unix seconds) are set on a job
	// that failed before; Unique on a job enqueued as unique.
	Fails    int64  `json:"fails,omitempty"`
	LastErr  string `json:"err,omitempty"`
	FailedAt int64  `json:"failed_at,omitempty"`
	Unique   bool   `json:"unique,omitempty"`
	// Raw is the whole stored item.
	Raw string `json:"-"`
	// ParseErr is set when the item is not a JSON object or `t` is missing
	// or not a number.
	ParseErr error `json:"-"`
}

// ParseJob reads a stored job. It never fails: what cannot be read is in
// ParseErr, and the raw text is kept in Raw.
func ParseJob(raw string) Job {
	j := Job{Raw: raw}
	var v struct {
		ID       any             `json:"id"`
		Name     any             `json:"name"`
		T        json.RawMessage `json:"t"`
		Args     json.RawMessage `json:"args"`
		Fails    json.RawMessage `json:"fails"`
		Err      any             `json:"err"`
		FailedAt json.RawMessage `json:"failed_at"`
		Unique   any             `json:"unique"`
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		j.ParseErr = fmt.Errorf("not a JSON object: %w", err)
		return j
	}
	j.ID, _ = v.ID.(string)
	j.Name, _ = v.Name.(string)
	j.LastErr, _ = v.Err.(string)
	j.Unique, _ = v.Unique.(bool)
	j.Args = v.Args
	j.Fails, _ = parseJSONSeconds(v.Fails)
	j.FailedAt, _ = parseJSONSeconds(v.FailedAt)
	if len(v.T) == 0 || string(v.T) == "null" {
		j.ParseErr = errors.New("no enqueue time (t)")
		return j
	}
	t, err := parseJSONSeconds(v.T)
	if err != nil {
		j.ParseErr = fmt.Errorf("enqueue time (t) %s is not a number", truncate(string(v.T), 40))
		return j
	}
	j.EnqueuedAt = t
	return j
}

// parseJSONSeconds reads a JSON number (gocraft writes integers; a float is
// accepted and truncated). An absent value reads as 0 with an error.
func parseJSONSeconds(b json.RawMessage) (int64, error) {
	if len(b) == 0 {
		return 0, errors.New("absent")
	}
	if b[0] == '"' {
		return 0, errors.New("a string, not a number")
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, err
	}
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	if err != nil {
		return 0, err
	}
	return int64(f), nil
}

// truncate cuts s to n bytes with "..." for a message; callers clean the
// message before it reaches a terminal.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
