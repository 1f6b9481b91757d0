// Names kept while callers outside this package move to the Reaper methods;
// each forwards to the one implementation.

package reaper

import (
	"context"

	"github.com/workq-tui/workq-tui/redisq"
)

// NewRepairer is NewReaper.
//
// Deprecated: use NewReaper.
func NewRepairer(conns redisq.Conns, namespace string, batch int) *Reaper {
	return NewReaper(conns, namespace, batch)
}

// Execute is Reap.
//
// Deprecated: use Reap.
func (r *Reaper) Execute(ctx context.Context, plan Plan, progress Progress) (Result, error) {
	return r.Reap(ctx, plan, progress)
}
