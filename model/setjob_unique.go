package model

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// UniqueKey is the key `<prefix>unique:<name>:<args>` that EnqueueUnique
// holds while a unique job waits, where <args> is the job's args as
// gocraft/work rebuilds them: decoded into a map (numbers through float64)
// and written by Go's json.Encoder (sorted keys, HTML escaping, a trailing
// newline); null or absent args add nothing, so the key ends in ':'. A
// job carrying `unique_key` (newer gocraft builds) uses that key instead.
// prefix is the namespace with its colon. ok is false for a job that is not
// unique.
func (j *JobFields) UniqueKeyIn(prefix string) (key string, ok bool, err error) {
	if j.UniqueKey != "" {
		return j.UniqueKey, true, nil
	}
	if !j.Unique {
		return "", false, nil
	}
	var buf bytes.Buffer
	buf.WriteString(prefix)
	buf.WriteString("unique:")
	buf.WriteString(j.Name)
	buf.WriteByte(':')
	var args map[string]any
	if len(j.Args) > 0 {
		if err := json.Unmarshal(j.Args, &args); err != nil {
			return "", true, fmt.Errorf("unique key of job %s: args are not an object: %w", j.ID, err)
		}
	}
	if args != nil {
		if err := json.NewEncoder(&buf).Encode(args); err != nil {
			return "", true, fmt.Errorf("unique key of job %s: %w", j.ID, err)
		}
	}
	return buf.String(), true, nil
}
