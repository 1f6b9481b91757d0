package main

// Commands still being built. Each moves to its own file when it lands.

import (
	"context"
	"errors"
)

var errNotBuilt = errors.New("not built yet")

func startDemo(context.Context, *config) (string, func(), error) {
	return "", nil, errNotBuilt
}
