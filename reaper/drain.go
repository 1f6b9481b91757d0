package reaper

// This file owns the plans of the writes on a queue by query: delete the
// jobs a query matches, or park them in the dead set, where they can be
// read and requeued later (`jobs dead requeue`). drain_exec.go carries
// them out; undo_drain.go puts them back.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// DrainAction is what a drain does with the jobs it takes.
type DrainAction string

// The drain actions.
const (
	// DrainDelete removes the jobs from the queue.
	DrainDelete DrainAction = "delete"
	// DrainPark moves them to the dead set with ParkedError as their err
	// and failed_at now.
	DrainPark DrainAction = "park"
)

// ParkedError is the err a parked job carries in the dead set.
const ParkedError = "parked by workq-tui: taken out of its queue by a query; requeue it from the dead set to run it"

// ErrEmptyQuery: a drain without a query would take the whole queue.
var ErrEmptyQuery = errors.New("a drain needs a query")

// DrainItem is one job a drain takes: its bytes, its run-order position
// when the plan read it (0 runs next) and its unique key ("" for none).
type DrainItem struct {
	Job       model.Job
	Raw       []byte
	Position  int64
	UniqueKey string
}

// DrainPlan is what a drain will do: every job of the queue the query
// matched, in run order.
type DrainPlan struct {
	Namespace string
	Action    DrainAction
	Job       string
	Queue     string
	Query     *model.Query
	RedisTime time.Time
	// Length is the queue's length as the walk read it; Items the jobs it
	// takes; Skipped members that are not jobs (never matched).
	Length  int64
	Items   []DrainItem
	Skipped int64
	// Bytes is the size of the jobs taken.
	Bytes int64

	keys    redisq.Keys
	planned time.Time // local clock when RedisTime was read
}

// PlanDrain walks job's queue in run order (redisq.WalkQueue) and keeps the
// jobs q matches. An empty query is refused: it would take every job.
func PlanDrain(ctx context.Context, c redis.Conn, keys redisq.Keys, action DrainAction, job string, q *model.Query) (DrainPlan, error) {
	p := DrainPlan{Namespace: strings.TrimSuffix(keys.Prefix(), ":"), Action: action, Job: job, Queue: keys.Queue(job), Query: q, keys: keys}
	switch {
	case action != DrainDelete && action != DrainPark:
		return p, fmt.Errorf("%w: unknown action %q", ErrBadTarget, action)
	case job == "":
		return p, fmt.Errorf("%w: no job type", ErrBadTarget)
	case q.Empty():
		return p, ErrEmptyQuery
	}
	now, err := redisq.Time(ctx, c)
	if err != nil {
		return p, fmt.Errorf("plan %s: %w", action, err)
	}
	p.RedisTime, p.planned = now, time.Now()
	err = redisq.WalkQueue(ctx, c, p.Queue, func(pos int64, raw []byte) {
		p.Length = pos + 1
		j := model.ParseJob(string(raw))
		if j.ParseErr != nil && j.ID == "" && j.Name == "" {
			p.Skipped++
			return
		}
		if !q.MatchQueueJob(&j.JobFields) {
			return
		}
		it := DrainItem{Job: j, Raw: append([]byte(nil), raw...), Position: pos}
		if key, ok, err := j.UniqueKeyIn(keys.Prefix()); err == nil && ok {
			it.UniqueKey = key
		}
		j.Raw = "" // Raw holds the bytes once
		it.Job = j
		p.Items = append(p.Items, it)
		p.Bytes += int64(len(raw))
	})
	if err != nil {
		return p, fmt.Errorf("plan %s: %w", action, err)
	}
	return p, nil
}

// now is Redis's clock now, from the plan's reading of it.
func (p *DrainPlan) now() int64 {
	return p.RedisTime.Add(time.Since(p.planned)).Unix()
}

// parkedBytes is a job as the dead set holds it once parked: its bytes with
// err set to ParkedError and failed_at to at. A job without err and
// failed_at keeps every byte and gains the two at its end; one with them
// (a retried job) is written again with its keys sorted.
func parkedBytes(raw []byte, at int64) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("not a JSON object: %w", errOr(err, errors.New("null")))
	}
	errText, _ := json.Marshal(ParkedError)
	_, hasErr := m["err"]
	_, hasAt := m["failed_at"]
	if !hasErr && !hasAt {
		b := bytes.TrimRight(raw, " \t\r\n")
		if len(b) == 0 || b[len(b)-1] != '}' {
			return nil, errors.New("not a JSON object")
		}
		out := make([]byte, 0, len(b)+len(ParkedError)+40)
		out = append(out, b[:len(b)-1]...)
		if len(m) > 0 {
			out = append(out, ',')
		}
		out = append(out, `"err":`...)
		out = append(out, errText...)
		out = append(out, `,"failed_at":`...)
		out = strconv.AppendInt(out, at, 10)
		return append(out, '}'), nil
	}
	m["err"] = errText
	m["failed_at"] = json.RawMessage(strconv.FormatInt(at, 10))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
