package reaper

// This file carries out an edit or duplicate plan (edit.go) in one call of
// lua/job_edit.lua, journalled: the member's bytes, the new bytes and the
// unique key the call changes, as it was, go to the journal before the
// call; the code and Redis's clock (the `t` written) after it.

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

//go:embed lua/job_edit.lua
var luaJobEdit string

// editScript is lua/job_edit.lua.
var editScript = redis.NewScript(4, luaJobEdit)

// EditResult is what an edit or duplicate did: Code as the script
// returned it ('e' replaced, 'q' requeued, 'c' copied; 'g', 's', 'h', 'x'
// refused), Now the `t` written, Unique what it did to unique keys
// ("moved", "set" or "").
type EditResult struct {
	Mode, Code, Now, Unique string
	// Written is the new job's exact bytes (when Code says it was written).
	Written []byte
}

// Done is whether the call wrote the new job.
func (r EditResult) Done() bool { return r.Code == "e" || r.Code == "q" || r.Code == "c" }

// ExecuteEdit carries out plan in one atomic call that re-checks the
// member's exact bytes and score, journalled to w.
func ExecuteEdit(ctx context.Context, c redis.Conn, plan EditPlan, w JournalWriter) (EditResult, error) {
	res := EditResult{Mode: plan.Mode}
	tv, err := redis.Int64s(redis.DoContext(c, ctx, "TIME"))
	if err != nil || len(tv) != 2 {
		return res, fmt.Errorf("%s: read the time: %w", plan.verb(), errOr(err, errors.New("bad reply")))
	}
	it := journal.Item{Set: plan.SetKey, Score: plan.Job.ScoreText, Old: plan.Job.Raw}
	if plan.Mode == EditReplace {
		it.New = plan.New
	} else {
		it.Queue, it.NewBefore, it.NewAfter = plan.QueueKey, plan.Before, plan.After
	}
	oldKey, newKey := plan.SetKey, plan.SetKey
	if plan.UniqueOp != "" {
		oldKey, newKey = plan.OldUnique, plan.NewUnique
		read := newKey
		if plan.UniqueOp == uniqueMove {
			read = oldKey
		}
		k, err := readKey(ctx, c, read)
		if err != nil {
			return res, fmt.Errorf("%s: %w", plan.verb(), err)
		}
		k.Mode = plan.UniqueOp
		it.Unique = k
	}
	seq, err := w.Intent(journal.Intent{RedisMs: tv[0]*1000 + tv[1]/1000, Items: []journal.Item{it}})
	if err != nil {
		return res, fmt.Errorf("%s: nothing changed: %w", plan.verb(), err)
	}
	a, b := plan.New, []byte{}
	if plan.Mode != EditReplace {
		a, b = plan.Before, plan.After
	}
	reply, callErr := redis.Values(editScript.DoContext(ctx, c, plan.SetKey, plan.QueueKey, oldKey, newKey,
		plan.Mode, plan.Job.Raw, plan.Job.ScoreText, a, b, plan.UniqueOp))
	if callErr == nil {
		if len(reply) == 2 {
			var what string
			_, _ = redis.Scan(reply, &res.Code, &what)
			callErr = fmt.Errorf("%s refused, nothing changed: %s: %w", plan.verb(), textsafe.Clean(what), ErrWrongType)
		} else if _, err := redis.Scan(reply, &res.Code, &res.Now, &res.Unique); err != nil {
			callErr = fmt.Errorf("%s: unexpected script reply: %w", plan.verb(), err)
		}
	}
	commit := journal.Commit{Codes: res.Code, Now: res.Now}
	if res.Unique != "" {
		commit.Statuses = []string{res.Unique}
	}
	if callErr != nil {
		commit = journal.Commit{Error: callErr.Error()}
	}
	if err := w.Commit(seq, commit); err != nil && callErr == nil {
		callErr = fmt.Errorf("%s done, but its journal was not written: %w", plan.verb(), err)
	}
	if callErr != nil {
		return res, callErr
	}
	if res.Done() {
		if plan.Mode == EditReplace {
			res.Written = plan.New
		} else {
			res.Written = requeued(it, res.Now)
		}
	}
	return res, plan.refusal(res.Code)
}

// verb names the action in errors.
func (p EditPlan) verb() string {
	if p.Mode == EditCopy {
		return "duplicate"
	}
	return "edit"
}

// refusal is the error of a code that wrote nothing (nil for the others).
func (p EditPlan) refusal(code string) error {
	id := textsafe.Clean(truncateBytes([]byte(p.Job.Job.ID), 40))
	switch code {
	case "e", "q", "c":
		return nil
	case "g":
		return fmt.Errorf("%s %s refused, nothing changed: %w: its bytes are no longer in %s (requeued, deleted or changed meanwhile); look again and retry", p.verb(), id, ErrEditMoved, textsafe.Clean(p.SetKey))
	case "s":
		return fmt.Errorf("%s %s refused, nothing changed: %w: it is in %s at another score than %s now; look again and retry", p.verb(), id, ErrEditMoved, textsafe.Clean(p.SetKey), textsafe.Clean(p.Job.ScoreText))
	case "h":
		return fmt.Errorf("%s %s refused, nothing changed: %w: %s was taken meanwhile by another job", p.verb(), id, ErrUniqueHeld, textsafe.Clean(p.NewUnique))
	case "x":
		return fmt.Errorf("%s %s refused, nothing changed: the edited bytes became a member of %s meanwhile", p.verb(), id, textsafe.Clean(p.SetKey))
	}
	return fmt.Errorf("%s: unexpected script code %q", p.verb(), code)
}
