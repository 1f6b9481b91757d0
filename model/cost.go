package model

import "time"

// ReadCost is what one read cost Redis, as the client saw it: the
// commands sent, the round trips, the bytes of the replies and the time
// spent waiting for them (the network's and Redis's, not this side's
// parsing).
type ReadCost struct {
	Commands, RoundTrips int
	ReplyBytes           int64
	Waited               time.Duration
}
