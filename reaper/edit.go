package reaper

// This file owns the plans of editing a job set member's arguments and of
// duplicating a member onto its queue: the member found by id, its new
// bytes cut from its stored bytes (only args, or only id, t and the
// failure fields, change), and what happens to its unique key. The
// execution is edit_exec.go (lua/job_edit.lua); edit_render.go draws them.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// What an edit or duplicate call does to the member.
const (
	// EditReplace: the member's bytes become the edited job's, same score.
	EditReplace = "replace"
	// EditRequeue: the edited job leaves the set for its queue (t = now,
	// and for a dead job without fails, err and failed_at).
	EditRequeue = "requeue"
	// EditCopy: a copy with a new id is pushed onto the queue (t = now, no
	// fails, err or failed_at); the member stays.
	EditCopy = "copy"
)

// What a call does to unique keys (lua/job_edit.lua).
const (
	uniqueMove = "move"
	uniqueSet  = "set"
)

// Sentinel errors of edits and duplicates.
var (
	// ErrNothingChanged: the edited arguments are those stored.
	ErrNothingChanged = errors.New("nothing changed")
	// ErrAmbiguous: an id names more than one member.
	ErrAmbiguous = errors.New("more than one job has this id")
	// ErrUniqueHeld: the unique key the new job would hold is held by
	// another job.
	ErrUniqueHeld = errors.New("unique key held")
	// ErrEditMoved: the member changed or left since the plan read it.
	ErrEditMoved = errors.New("the job changed since it was read")
)

// EditPlan is what an edit or a duplicate will do to one member.
type EditPlan struct {
	Namespace string
	RedisTime time.Time
	// Mode is EditReplace, EditRequeue or EditCopy.
	Mode string
	// SetKey is the member's set; QueueKey its job's queue.
	SetKey, QueueKey string
	// Job is the member as read (Raw, ScoreText).
	Job model.SetJob
	// OldArgs and NewArgs are the args as stored and as the new job has
	// them (the same for a copy).
	OldArgs, NewArgs []byte
	// New is the edited member (EditReplace); Before and After the new job
	// around its `t` value (EditRequeue, EditCopy).
	New, Before, After []byte
	// NewID is the copy's id (EditCopy).
	NewID string
	// OldUnique and NewUnique are the unique keys of the member and of the
	// new job ("" for a job that is not unique); UniqueOp what the call
	// does to them ("", "move" or "set"); OldHeld and NewHeld whether they
	// exist now.
	OldUnique, NewUnique string
	UniqueOp             string
	OldHeld, NewHeld     bool
	// Unserved: no live pool serves the job's name (a requeued or copied
	// job waits); Paused: its type is paused.
	Unserved, Paused bool
	// Notes are for the operator (unique keys, periodic jobs ...).
	Notes []string
}

// findOne finds the one member ref addresses in set.
func findOne(ctx context.Context, c redis.Conn, keys redisq.Keys, set model.SetName, ref JobRef) (model.SetJob, error) {
	members, err := findRefs(ctx, c, keys, set, []JobRef{ref})
	if err != nil {
		return model.SetJob{}, err
	}
	if len(members) > 1 {
		scores := make([]string, 0, len(members))
		for _, m := range members {
			scores = append(scores, m.ScoreText)
		}
		return model.SetJob{}, fmt.Errorf("%s: %w in %s (%d, at scores %s): give ID@SCORE", textsafe.Clean(ref.String()), ErrAmbiguous, redisq.SetKey(keys, set), len(members), strings.Join(scores, ", "))
	}
	sj := members[0]
	if sj.Job == nil || sj.Job.Name == "" {
		return sj, fmt.Errorf("%s: %w: not a job with a name", textsafe.Clean(ref.String()), model.ErrNotEditable)
	}
	return sj, nil
}

// PlanEdit reads the member ref addresses in set and plans replacing its
// args with args (a compact JSON object, model.CompactArgs), and with
// requeue moving the edited job onto its queue. Arguments equal to those
// stored are ErrNothingChanged.
func PlanEdit(ctx context.Context, c redis.Conn, keys redisq.Keys, set model.SetName, ref JobRef, args []byte, requeue bool) (EditPlan, error) {
	p, err := planMember(ctx, c, keys, set, ref)
	if err != nil {
		return p, err
	}
	p.Mode = EditReplace
	if requeue {
		p.Mode = EditRequeue
	}
	raw := p.Job.Raw
	if p.OldArgs, err = model.ArgsOf(raw); err != nil {
		return p, fmt.Errorf("edit %s: %w", textsafe.Clean(ref.String()), err)
	}
	if same, err := sameArgs(p.OldArgs, args); err == nil && same {
		return p, ErrNothingChanged
	}
	p.NewArgs = args
	if p.New, err = model.ReplaceField(raw, "args", args); err != nil {
		return p, fmt.Errorf("edit %s: %w", textsafe.Clean(ref.String()), err)
	}
	if requeue {
		e, err := model.EditForRequeue(p.New, set == model.SetDead)
		if err != nil {
			return p, fmt.Errorf("edit %s: %w", textsafe.Clean(ref.String()), err)
		}
		p.Before, p.After, p.New = e.Before, e.After, nil
	}
	edited := model.ParseMember(set, p.editedBytes())
	if edited.Job == nil {
		return p, fmt.Errorf("edit %s: the edited job does not read as a job: %s", textsafe.Clean(ref.String()), textsafe.Clean(edited.Problem))
	}
	if err := p.planUnique(ctx, c, keys, edited.Job); err != nil {
		return p, err
	}
	return p, p.checkNewMember(ctx, c)
}

// PlanDuplicate reads the member ref addresses in set and plans pushing a
// copy of it onto its queue with a new id (gocraft/work's format: 12
// random bytes in hex), t = now and no fails, err or failed_at.
func PlanDuplicate(ctx context.Context, c redis.Conn, keys redisq.Keys, set model.SetName, ref JobRef) (EditPlan, error) {
	p, err := planMember(ctx, c, keys, set, ref)
	if err != nil {
		return p, err
	}
	p.Mode = EditCopy
	if p.OldArgs, err = model.ArgsOf(p.Job.Raw); err != nil {
		return p, fmt.Errorf("duplicate %s: %w", textsafe.Clean(ref.String()), err)
	}
	p.NewArgs = p.OldArgs
	if p.NewID, err = NewJobID(); err != nil {
		return p, err
	}
	withID, err := model.ReplaceField(p.Job.Raw, "id", []byte(strconv.Quote(p.NewID)))
	if err != nil {
		return p, fmt.Errorf("duplicate %s: %w", textsafe.Clean(ref.String()), err)
	}
	e, err := model.EditForRequeue(withID, true)
	if err != nil {
		return p, fmt.Errorf("duplicate %s: %w", textsafe.Clean(ref.String()), err)
	}
	p.Before, p.After = e.Before, e.After
	copied := model.ParseMember(set, p.editedBytes())
	if copied.Job == nil {
		return p, fmt.Errorf("duplicate %s: the copy does not read as a job: %s", textsafe.Clean(ref.String()), textsafe.Clean(copied.Problem))
	}
	err = p.planUnique(ctx, c, keys, copied.Job)
	return p, err
}

// NewJobID is a job id as gocraft/work v0.5.1 makes one: 12 random bytes
// as 24 lower-case hex digits.
func NewJobID() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new job id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// planMember reads what every edit or duplicate needs: Redis's clock, the
// member, its queue, whether a live pool serves its name.
func planMember(ctx context.Context, c redis.Conn, keys redisq.Keys, set model.SetName, ref JobRef) (EditPlan, error) {
	p := EditPlan{Namespace: strings.TrimSuffix(keys.Prefix(), ":"), SetKey: redisq.SetKey(keys, set)}
	now, err := redisq.Time(ctx, c)
	if err != nil {
		return p, err
	}
	p.RedisTime = now
	if p.Job, err = findOne(ctx, c, keys, set, ref); err != nil {
		return p, err
	}
	name := p.Job.Job.Name
	p.QueueKey = keys.Queue(name)
	served, err := jobsServed(ctx, c, keys, now)
	if err != nil {
		return p, err
	}
	p.Unserved = !served[name]
	paused, err := jobsPaused(ctx, c, keys, []string{name})
	if err != nil {
		return p, err
	}
	p.Paused = paused[name]
	if p.Job.Job.Periodic() {
		p.Notes = append(p.Notes, "a periodic job: the periodic enqueuer writes its own bytes into scheduled again while its fire time is within 4 min")
	}
	return p, nil
}

// editedBytes is the new job's bytes (with the plan's clock as `t` where
// the script writes Redis's).
func (p EditPlan) editedBytes() []byte {
	if p.Mode == EditReplace {
		return p.New
	}
	t := strconv.FormatInt(p.RedisTime.Unix(), 10)
	return append(append(append([]byte{}, p.Before...), t...), p.After...)
}

// planUnique works out what happens to unique keys, as gocraft/work v0.5.1
// would have them: a unique job holds `<ns>:unique:<name>:<args>` while it
// waits in a queue or in scheduled (its worker deletes the key as it
// starts the job), and a job's key is built from its args, so edited args
// name another key.
func (p *EditPlan) planUnique(ctx context.Context, c redis.Conn, keys redisq.Keys, newJob *model.JobFields) error {
	old, oldOK, oldErr := p.Job.Job.UniqueKeyIn(keys.Prefix())
	nk, newOK, newErr := newJob.UniqueKeyIn(keys.Prefix())
	if !oldOK && !newOK {
		return nil
	}
	if oldErr != nil || newErr != nil {
		p.Notes = append(p.Notes, "a unique job whose args are not an object: no unique key can be built for it, none is read or written")
		return nil //nolint:nilerr // a note of the plan, as gocraft/work could build no key either

	}
	p.OldUnique, p.NewUnique = old, nk
	for _, k := range []struct {
		key  string
		held *bool
	}{{old, &p.OldHeld}, {nk, &p.NewHeld}} {
		n, err := redis.Int(redis.DoContext(c, ctx, "EXISTS", k.key))
		if err != nil {
			return fmt.Errorf("read %s: %w", textsafe.Clean(k.key), err)
		}
		*k.held = n == 1
	}
	waiting := p.Job.Set == model.SetScheduled
	switch {
	case p.Mode == EditCopy:
		p.UniqueOp = uniqueSet
		if p.NewHeld {
			return fmt.Errorf("duplicate: %w: %s is held (a copy with these args is waiting): a unique job whose key is held cannot be duplicated, as EnqueueUnique would refuse it", ErrUniqueHeld, textsafe.Clean(nk))
		}
		p.Notes = append(p.Notes, fmt.Sprintf("a unique job: the copy sets its unique key %s for 24 h, as EnqueueUnique does", textsafe.Clean(nk)))
	case old == nk:
		p.Notes = append(p.Notes, fmt.Sprintf("a unique job: its unique key %s does not change", textsafe.Clean(nk)))
		if p.Mode == EditRequeue && !waiting {
			p.UniqueOp = uniqueSet
			if p.NewHeld {
				return fmt.Errorf("edit --requeue: %w: %s is held by a waiting copy: EnqueueUnique would refuse this job; edit without --requeue, or delete the key first", ErrUniqueHeld, textsafe.Clean(nk))
			}
			p.Notes = append(p.Notes, "the requeued job sets it for 24 h, as EnqueueUnique does")
		}
	case waiting:
		p.UniqueOp = uniqueMove
		if p.OldHeld && p.NewHeld {
			return fmt.Errorf("edit: %w: the edited args' unique key %s is held by another job: gocraft/work would refuse to enqueue this job", ErrUniqueHeld, textsafe.Clean(nk))
		}
		if p.OldHeld {
			p.Notes = append(p.Notes, fmt.Sprintf("a unique job: gocraft/work builds its unique key from its args, so its key %s moves to %s, with its value and time to live", textsafe.Clean(old), textsafe.Clean(nk)))
		} else {
			p.Notes = append(p.Notes, fmt.Sprintf("a unique job: its key becomes %s (it held no key: %s is absent, so none is set)", textsafe.Clean(nk), textsafe.Clean(old)))
		}
	default:
		msg := fmt.Sprintf("a unique job: its unique key becomes %s (was %s); in %s it holds no key (its worker deleted it when it started the job)", textsafe.Clean(nk), textsafe.Clean(old), p.Job.Set)
		if p.Mode == EditRequeue {
			p.UniqueOp = uniqueSet
			if p.NewHeld {
				return fmt.Errorf("edit --requeue: %w: the edited args' unique key %s is held by a waiting job: EnqueueUnique would refuse this job", ErrUniqueHeld, textsafe.Clean(nk))
			}
			msg += "; the requeued job sets the new key for 24 h, as EnqueueUnique does"
		}
		p.Notes = append(p.Notes, msg)
	}
	return nil
}

// checkNewMember refuses an edit whose new bytes are a member of the set
// already (an identical job there): the replace would merge the two.
func (p EditPlan) checkNewMember(ctx context.Context, c redis.Conn) error {
	if p.Mode != EditReplace {
		return nil
	}
	_, err := redis.Bytes(redis.DoContext(c, ctx, "ZSCORE", p.SetKey, p.New))
	switch {
	case errors.Is(err, redis.ErrNil):
		return nil
	case err != nil:
		return fmt.Errorf("read %s: %w", textsafe.Clean(p.SetKey), err)
	}
	return fmt.Errorf("edit: the edited job's bytes are already a member of %s (an identical job): nothing changed", textsafe.Clean(p.SetKey))
}

// sameArgs is whether stored args (nil: none) and new args are the same
// JSON text once compacted (a null or absent args reads as {}).
func sameArgs(stored, args []byte) (bool, error) {
	s := bytes.TrimSpace(stored)
	if len(s) == 0 || string(s) == "null" {
		s = []byte("{}")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, s); err != nil {
		return false, err
	}
	return bytes.Equal(b.Bytes(), args), nil
}

// ReadEditable reads the member ref addresses in set, for its args to be
// edited: the member and its args as stored (nil when it has none).
func ReadEditable(ctx context.Context, c redis.Conn, keys redisq.Keys, set model.SetName, ref JobRef) (model.SetJob, []byte, error) {
	sj, err := findOne(ctx, c, keys, set, ref)
	if err != nil {
		return sj, nil, err
	}
	args, err := model.ArgsOf(sj.Raw)
	if err != nil {
		return sj, nil, fmt.Errorf("edit %s: %w", textsafe.Clean(ref.String()), err)
	}
	return sj, args, nil
}
