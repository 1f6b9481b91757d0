package reaper

import (
	"errors"
	"testing"

	"github.com/workq-tui/workq-tui/model"
)

// TestNotRequeueableKeepsTheEditError: a member whose bytes cannot be
// edited is refused with an error that both ErrNotRequeueable and the
// model's ErrNotEditable are found in.
func TestNotRequeueableKeepsTheEditError(t *testing.T) {
	p := &JobsPlan{Action: JobsRequeue, known: map[string]bool{"mail": true}, served: map[string]bool{"mail": true}}
	sj := model.ParseSetJob(model.SetDead, []byte(`{"name":"mail","id":"a1","t":1,"t":2,"args":{}}`), "5")
	_, err := p.item(sj)
	if !errors.Is(err, ErrNotRequeueable) || !errors.Is(err, model.ErrNotEditable) {
		t.Fatalf("err %v: want both ErrNotRequeueable and model.ErrNotEditable in its chain", err)
	}
}
