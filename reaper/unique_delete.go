package reaper

// This file owns delete-unique: deleting gocraft/work unique keys
// (<ns>:unique:<job>:<args>) that refuse new enqueues while no copy of the
// job waits. Their names end in a newline byte, which a person cannot
// paste into redis-cli, and every refused enqueue renews their 24 h time
// to live, so waiting is no fix either. Each key is deleted in its own
// atomic step, only while it holds the value the plan read, and is
// journalled with its value and time to live so that undo sets it back.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// The statuses of a unique key's deletion, as lua/delete_unique.lua
// returns them and the journal keeps them.
const (
	UniqueDeleted = "deleted"
	UniqueChanged = "changed"
	UniqueAbsent  = "absent"
)

// UniqueKeyPlan is one unique key as the plan read it.
type UniqueKeyPlan struct {
	// Args is the key's last part as the operator gave it (the arguments,
	// without the trailing newline); Key the key found ("" when none).
	Args string
	Key  string
	// Value is its value; PTTL its time to live in milliseconds (-1: none).
	Value []byte
	PTTL  int64
}

// UniqueDeletePlan is what delete-unique will delete.
type UniqueDeletePlan struct {
	Namespace string
	JobName   string
	Keys      []UniqueKeyPlan
}

// Found are the keys of the plan that exist.
func (p UniqueDeletePlan) Found() []UniqueKeyPlan {
	var out []UniqueKeyPlan
	for _, k := range p.Keys {
		if k.Key != "" {
			out = append(out, k)
		}
	}
	return out
}

// UniqueDeleteResult is what delete-unique did.
type UniqueDeleteResult struct {
	Deleted, Changed, Absent int64
}

// uniqueKeyNames are the names a unique key of job with the given last
// part may have: gocraft/work's (ending in a newline byte, which its JSON
// encoder writes), then the same without it.
func (r *Reaper) uniqueKeyNames(job, args string) []string {
	base := r.keys.Prefix() + "unique:" + job + ":" + strings.TrimSuffix(args, "\n")
	return []string{base + "\n", base}
}

// PlanDeleteUnique reads, for each last part of a unique key of job, the
// key, its value and its time to live. A key of another type fails the
// plan.
func (r *Reaper) PlanDeleteUnique(ctx context.Context, job string, args []string) (UniqueDeletePlan, error) {
	p := UniqueDeletePlan{Namespace: strings.TrimSuffix(r.keys.Prefix(), ":"), JobName: job}
	c, err := r.conn(ctx, "delete-unique")
	if err != nil {
		return p, err
	}
	defer c.Close()
	seen := map[string]bool{}
	for _, a := range args {
		kp := UniqueKeyPlan{Args: strings.TrimSuffix(a, "\n")}
		if seen[kp.Args] {
			continue
		}
		seen[kp.Args] = true
		for _, name := range r.uniqueKeyNames(job, a) {
			v, err := redis.Bytes(redis.DoContext(c, ctx, "GET", name))
			var re redis.Error
			switch {
			case errors.Is(err, redis.ErrNil):
				continue
			case errors.As(err, &re):
				return p, fmt.Errorf("delete-unique: %s: %w", strconv.Quote(name), ErrWrongType)
			case err != nil:
				return p, fmt.Errorf("delete-unique: read %s: %w", strconv.Quote(name), err)
			}
			ttl, err := redis.Int64(redis.DoContext(c, ctx, "PTTL", name))
			if err != nil {
				return p, fmt.Errorf("delete-unique: read %s: %w", strconv.Quote(name), err)
			}
			kp.Key, kp.Value, kp.PTTL = name, v, ttl
			break
		}
		p.Keys = append(p.Keys, kp)
	}
	return p, nil
}

// DeleteUnique deletes each key of the plan that was found, one script
// call each, writing the call's intent to w before it and its outcome
// after (w nil: no journal).
func (r *Reaper) DeleteUnique(ctx context.Context, plan UniqueDeletePlan, w JournalWriter) (UniqueDeleteResult, error) {
	var res UniqueDeleteResult
	c, err := r.conn(ctx, "delete-unique")
	if err != nil {
		return res, err
	}
	defer c.Close()
	for _, k := range plan.Found() {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("delete-unique: interrupted after %d: %w", res.Deleted, err)
		}
		seq := 0
		if w != nil {
			tv, err := redis.Int64s(redis.DoContext(c, ctx, "TIME"))
			if err != nil || len(tv) != 2 {
				return res, fmt.Errorf("delete-unique: journal: read the time: %w", errOr(err, errors.New("bad reply")))
			}
			item := journal.Item{Key: &journal.Key{Name: k.Key, Exists: true, Value: k.Value, PTTL: k.PTTL}}
			if seq, err = w.Intent(journal.Intent{RedisMs: tv[0]*1000 + tv[1]/1000, Items: []journal.Item{item}}); err != nil {
				return res, fmt.Errorf("delete-unique: journal: %w", err)
			}
		}
		v, err := redis.Values(r.scripts.deleteUnique.DoContext(ctx, c, k.Key, k.Value))
		var status string
		if err == nil {
			var head string
			if len(v) == 2 {
				head, _ = redis.String(v[0], nil)
				status, _ = redis.String(v[1], nil)
			}
			switch {
			case head == "ok" && (status == UniqueDeleted || status == UniqueChanged || status == UniqueAbsent):
			case head == "wrongtype":
				err = fmt.Errorf("%s: %w", strconv.Quote(k.Key), ErrWrongType)
			default:
				err = fmt.Errorf("unexpected script reply %v", v)
			}
		}
		if w != nil {
			cm := journal.Commit{Statuses: []string{status}}
			if err != nil {
				cm.Error = err.Error()
			}
			if jerr := w.Commit(seq, cm); jerr != nil && err == nil {
				err = fmt.Errorf("journal: %w", jerr)
			}
		}
		if err != nil {
			return res, fmt.Errorf("delete-unique %s: %w", strconv.Quote(k.Key), err)
		}
		switch status {
		case UniqueDeleted:
			res.Deleted++
		case UniqueChanged:
			res.Changed++
		default:
			res.Absent++
		}
	}
	return res, nil
}

// UniqueDeletePlanText is a delete-unique plan as plain text; every string
// from Redis is cleaned, and key names are quoted as Go strings, so the
// trailing newline shows as \n.
func UniqueDeletePlanText(p UniqueDeletePlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Delete-unique plan for namespace %s, job type %s:\n", textsafe.Clean(p.Namespace), textsafe.Clean(p.JobName))
	for _, k := range p.Keys {
		if k.Key == "" {
			fmt.Fprintf(&b, "  %s: no such unique key (absent or expired)\n", textsafe.Clean(strconv.Quote(k.Args)))
			continue
		}
		fmt.Fprintf(&b, "  %s\n    holds %s; %s\n", textsafe.Clean(strconv.Quote(k.Key)), uniqueValueText(k.Value), uniqueTTLText(k.PTTL))
	}
	n := len(p.Found())
	if n == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "Total: %s deleted; EnqueueUnique of these arguments is accepted again.\n", model.Plural(n, "unique key", "unique keys"))
	b.WriteString("Each is deleted only while it holds the value shown (a new enqueue that rewrote it is left alone). `undo` sets them back with their time to live.\n")
	return b.String()
}

// uniqueValueText names a unique key's value: v0.5.1's "1", or the job
// gocraft/work master and gojek/work keep there (the one that runs).
func uniqueValueText(v []byte) string {
	if f, _ := model.ParseJobFields(v); f != nil && f.ID != "" {
		return "job " + textsafe.Clean(f.ID) + " (the job a worker would run)"
	}
	return strconv.Quote(textsafe.Cut(textsafe.Clean(string(v)), 40))
}

// uniqueTTLText is a time to live in words.
func uniqueTTLText(ms int64) string {
	if ms < 0 {
		return "no expiry"
	}
	return "expires in " + model.FormatAge(time.Duration(ms)*time.Millisecond)
}

// UniqueDeleteResultText is what delete-unique did.
func UniqueDeleteResultText(r UniqueDeleteResult) string {
	s := fmt.Sprintf("Done: %s deleted.\n", model.Plural(r.Deleted, "unique key", "unique keys"))
	if r.Changed > 0 {
		s += fmt.Sprintf("%s another value when deleted (a new enqueue): left alone.\n", model.Plural(r.Changed, "key held", "keys held"))
	}
	if r.Absent > 0 {
		s += fmt.Sprintf("%s already gone.\n", model.Plural(r.Absent, "key was", "keys were"))
	}
	return s
}
