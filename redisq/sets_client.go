package redisq

import (
	"context"

	"github.com/workq-tui/workq-tui/model"
)

// This file gives the client the job-set reads, each on a connection of its
// own (see sets.go and sets_scan.go).

// SetCounts reads the sizes of the three job sets (ReadSetCounts).
func (c *Client) SetCounts(ctx context.Context) (SetCounts, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return SetCounts{}, c.wrap(err)
	}
	defer conn.Close()
	n, err := ReadSetCounts(ctx, conn, c.keys)
	return n, c.wrap(err)
}

// SetPage reads a page of a job set: a plain page (ReadSetPage) for the
// empty filter, else a filtered one (FilterSetPage).
func (c *Client) SetPage(ctx context.Context, set model.SetName, f SetFilter, o PageOptions, so ScanOptions) (SetPage, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return SetPage{}, c.wrap(err)
	}
	defer conn.Close()
	var p SetPage
	if f.Empty() {
		p, err = ReadSetPage(ctx, conn, c.keys, set, o)
	} else {
		p, err = FilterSetPage(ctx, conn, c.keys, set, f, o, so)
	}
	return p, c.wrap(err)
}

// SummarizeSet counts a job set by job type and error (SummarizeSet).
func (c *Client) SummarizeSet(ctx context.Context, set model.SetName, f SetFilter, so ScanOptions) (*model.SetSummary, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	s, err := SummarizeSet(ctx, conn, c.keys, set, f, so)
	return s, c.wrap(err)
}
